# lib.sh - a tiny harness for CLI tests in the manner of git's t/test-lib.sh.
# A test script sources this file, then calls
#     test_expect_success 'what it proves' '
#         commands chained with && ...
#     '
# and ends with test_done. Each test runs in a scratch folder of its own.
# Environment: POYO (the binary), TOOLS (test tools), MOTIONSTATS (the motion
# meter, TOOLS' own when unset), DATA (tests/data: real emoji kept in the
# repository), SAMPLES (the repository's samples/ folder).

: "${POYO:?POYO must name the poyo binary}"
: "${TOOLS:?TOOLS must name the test tools folder}"
: "${MOTIONSTATS:=$TOOLS/motionstats}"
: "${DATA:?DATA must name the tests/data folder}"
test_count=0
test_failed=0
test_name=$(basename "$0" .sh)
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/poyo-$test_name.XXXXXX") || exit 1
trap 'rm -rf "$TRASH"' EXIT
cd "$TRASH" || exit 1

say() { printf '%s\n' "$*"; }

# test_expect_success DESCRIPTION COMMANDS
test_expect_success() {
    test_count=$((test_count + 1))
    mkdir "$TRASH/$test_count" || exit 1
    if (cd "$TRASH/$test_count" && eval "$2") >"$TRASH/.out" 2>&1; then
        say "ok $test_count - $1"
    else
        test_failed=$((test_failed + 1))
        say "not ok $test_count - $1"
        sed 's/^/#   /' "$TRASH/.out" | tail -n 25
    fi
}

# test_skip DESCRIPTION REASON: counted as neither passed nor failed, said aloud.
test_skip() {
    say "skip - $1 ($2)"
}

# expect_exit CODE CMD...: runs CMD, fails unless it exits with CODE.
expect_exit() {
    want=$1
    shift
    "$@"
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "expected exit $want, got $got: $*" >&2
        return 1
    fi
    return 0
}

# expect_line FILE TEXT: FILE is exactly one line, equal to TEXT.
expect_line() {
    if [ "$(wc -l <"$1")" -ne 1 ] || [ "$(cat "$1")" != "$2" ]; then
        echo "expected exactly: $2" >&2
        echo "got:" >&2
        cat "$1" >&2
        return 1
    fi
}

# expect_refused FILE MESSAGE: poyo, given FILE as input (within 20 s), exits 1
# with the one line "poyo: FILE: MESSAGE" on standard error.
expect_refused() {
    expect_exit 1 timeout 20 "$POYO" "$1" -o o.gif 2>err && expect_line err "poyo: $1: $2"
}

# expect_no_file PATH...: none of the files exist.
expect_no_file() {
    for f in "$@"; do
        if [ -e "$f" ]; then
            echo "unexpected file: $f" >&2
            return 1
        fi
    done
}

# no_temp_files DIR: no leftover temporary output in DIR.
no_temp_files() {
    left=$(find "$1" -maxdepth 1 -name '.*.??????' 2>/dev/null)
    if [ -n "$left" ]; then
        echo "temporary files left: $left" >&2
        return 1
    fi
}

test_done() {
    say "# $test_name: $((test_count - test_failed)) passed, $test_failed failed"
    [ "$test_failed" -eq 0 ]
}
