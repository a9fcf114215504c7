#!/bin/sh
# t_complete.sh - poyo --completion bash|zsh|fish: the scripts come from the
# option tables, so bash, sourcing its script, offers the impulses after -i,
# the presets after -p, the formats after --format, every option --help lists
# and the image files poyo reads; the zsh and fish scripts name every option
# too and parse in their shells (where those are installed); make install puts
# the three where the shells look.
. "$(dirname "$0")/lib.sh"

# complete_bash WORD...: what the bash script offers for the last WORD, one a line, sorted
complete_bash() {
    bash -c '. ./poyo.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _poyo; for w in "${COMPREPLY[@]}"; do printf "%s\n" "$w"; done' \
        bash poyo "$@" | sort -u
}

# test_cmp WANT GOT: the files are equal (the difference said when not)
test_cmp() {
    cmp -s "$1" "$2" || { diff "$1" "$2" >&2; return 1; }
}

# the options a command's --help lists (long and short), sorted
help_options() {
    "$POYO" "$1" --help | grep -oE '^ +(-[a-z], )?--[a-z-]+' | tr -d ',' | tr ' ' '\n' | grep -E '^-' | sort -u
}

test_expect_success 'bash: -i offers the impulses --list-impulses shows, -p the presets check lists' '
    "$POYO" --completion bash >poyo.bash &&
    "$POYO" --list-impulses | awk "NR > 1 { print \$1 }" | sort >impulses &&
    [ "$(wc -l <impulses)" -ge 9 ] &&
    complete_bash -i "" >got && test_cmp impulses got &&
    complete_bash text --impulse "" >got && test_cmp impulses got &&
    complete_bash -i "s" >got && [ "$(cat got)" = "$(grep "^s" impulses)" ] &&
    "$POYO" check --list-presets | awk "NR > 1 && !/^Limits/ { print \$1 }" | sort >presets &&
    [ "$(wc -l <presets)" -ge 10 ] &&
    complete_bash -p "" >got && test_cmp presets got &&
    complete_bash check --preset "" >got && test_cmp presets got
'

test_expect_success 'bash: --format offers the formats, --anchor the anchors, numbers nothing' '
    "$POYO" --completion bash >poyo.bash &&
    complete_bash rope --format "" >got && printf "apng\ngif\nwebm\nwebp\n" >want && test_cmp want got &&
    complete_bash --anchor "" >got && printf "auto\nbottom\nnone\ntop\n" >want && test_cmp want got &&
    complete_bash --hz "" >got && [ ! -s got ]
'

for cmd in animate text rope path sdf check; do
    test_expect_success "bash: poyo $cmd -<TAB> offers every option its --help lists" '
        "$POYO" --completion bash >poyo.bash &&
        help_options '"$cmd"' >want && [ "$(wc -l <want)" -ge 5 ] &&
        complete_bash '"$cmd"' - >got &&
        missing=$(comm -23 want got) && [ -z "$missing" ] || { echo "not offered: $missing" >&2; exit 1; }
    '
done

test_expect_success 'bash: an input is an image file, a directory or a subcommand; check takes animations' '
    "$POYO" --completion bash >poyo.bash &&
    mkdir dir && touch a.png b.JPG c.txt d.svg e.webm &&
    complete_bash "" >got && printf "%s\n" a.png animate b.JPG check d.svg dir path rope sdf text | sort >want &&
    test_cmp want got &&
    complete_bash -o x.gif "" >got && printf "%s\n" a.png b.JPG d.svg dir | sort >want && test_cmp want got &&
    complete_bash check -p line "" >got && printf "%s\n" a.png dir e.webm | sort >want && test_cmp want got &&
    complete_bash --frames "" >got && [ "$(cat got)" = dir ]
'

test_expect_success 'the zsh and fish scripts name every option of every subcommand' '
    "$POYO" --completion zsh >_poyo && "$POYO" --completion fish >poyo.fish &&
    head -n 1 _poyo | grep -qx "#compdef poyo" &&
    for cmd in animate text rope path sdf check; do
        for opt in $(help_options $cmd | grep -- "^--"); do
            grep -q -- " $opt\\b" _poyo && grep -q -- "-n .__poyo_cmd $cmd. -l ${opt#--}\\b" poyo.fish ||
                { echo "$cmd $opt missing" >&2; exit 1; }
        done
    done &&
    grep -q "compadd -- squash stretch" _poyo && grep -q -- "-l impulse -s i -x -a .squash stretch" poyo.fish
'

# zsh and fish come with make deps: a machine without them fails here
test_expect_success 'zsh parses its script' '
    "$POYO" --completion zsh >_poyo && zsh -n _poyo
'

test_expect_success 'fish parses its script and offers the impulses after -i' '
    "$POYO" --completion fish >poyo.fish && fish -n poyo.fish &&
    "$POYO" --list-impulses | awk "NR > 1 { print \$1 }" | sort >impulses &&
    HOME=$PWD fish -c "source poyo.fish; complete -C \"poyo -i \"" | cut -f 1 | sort >got &&
    test_cmp impulses got
'

test_expect_success 'another shell is a usage error' '
    expect_exit 2 "$POYO" --completion tcsh >out 2>err &&
    expect_line err "poyo: --completion: must be bash, zsh or fish, not '\''tcsh'\''" && [ ! -s out ] &&
    expect_exit 2 "$POYO" --completion 2>err &&
    expect_line err "poyo: --completion: must be bash, zsh or fish, not '\'''\''"
'

test_expect_success 'make install puts the man page and the three completions where the shells look' '
    root=$(cd "$SAMPLES/.." && pwd) && build=$(cd "$(dirname "$POYO")" && pwd) &&
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$root" BUILD="$build" PREFIX=/usr DESTDIR="$PWD/root" \
        install >log 2>&1 &&
    test -x root/usr/bin/poyo && test -f root/usr/share/man/man1/poyo.1 &&
    "$POYO" --completion bash | cmp - root/usr/share/bash-completion/completions/poyo &&
    "$POYO" --completion zsh | cmp - root/usr/share/zsh/site-functions/_poyo &&
    "$POYO" --completion fish | cmp - root/usr/share/fish/vendor_completions.d/poyo.fish
'

test_done
