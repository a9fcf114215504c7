/* test_cli.c - the command line's helpers: option scanning (long, short,
 * inline values, "--", "-"), the strict numbers, sizes, byte counts, pairs and
 * colours with the exact one-line message each refusal prints, output names,
 * the file mode, and JSON strings for names that are not valid UTF-8. */
#include "test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

/* What stderr received between capture_begin and capture_end. */
static int saved_fd = -1;
static char captured[2048];

static int capture_begin(void)
{
    char path[] = "/tmp/poyo-cli.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    unlink(path);
    fflush(stderr);
    saved_fd = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    return 1;
}

static const char *capture_end(void)
{
    fflush(stderr);
    off_t n = lseek(STDERR_FILENO, 0, SEEK_CUR);
    ssize_t r = 0;
    if (n > 0 && lseek(STDERR_FILENO, 0, SEEK_SET) == 0)
        r = read(STDERR_FILENO, captured, sizeof captured - 1);
    captured[r > 0 ? r : 0] = '\0';
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    return captured;
}

enum { O_OUTPUT = OPT_OUTPUT, O_FORCE = OPT_FORCE, O_QUIET = OPT_QUIET, O_SIZE = OPT_SIZE };
static const cli_opt opts[] = {
    { .id = O_OUTPUT, .kind = CLI_FILE, .name = "output", .short_name = 'o', .arg = "FILE" },
    { .id = O_FORCE, .kind = CLI_FLAG, .name = "force", .short_name = 'f' },
    { .id = O_QUIET, .kind = CLI_FLAG, .name = "quiet", .short_name = 'q' },
    { .id = O_SIZE, .kind = CLI_STRING, .name = "size", .short_name = 's', .arg = "WxH" },
    { .name = NULL },
};

static void no_default(int id, char *buf, size_t cap)
{
    (void)id;
    if (cap)
        buf[0] = '\0';
}

static const cli_command test_cmd = { "test", opts, NULL, no_default };

static void test_scans_options_and_operands(void)
{
    char *argv[] = { "poyo", "in.png", "--output=x.gif", "-s64", "-o", "y.gif", "-f", "--size", "32x16",
                     "-", "--", "-q", "--force", NULL };
    int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
    cli_parser p;
    cli_init(&p, argc, argv, &test_cmd);
    const char *operand = NULL;
    ENSURE(cli_next(&p, &operand) == 0 && strcmp(operand, "in.png") == 0);
    ENSURE(cli_next(&p, &operand) == O_OUTPUT && strcmp(p.value, "x.gif") == 0 && strcmp(p.name, "--output") == 0);
    ENSURE(cli_next(&p, &operand) == O_SIZE && strcmp(p.value, "64") == 0 && strcmp(p.name, "-s") == 0);
    ENSURE(cli_next(&p, &operand) == O_OUTPUT && strcmp(p.value, "y.gif") == 0);
    ENSURE(cli_next(&p, &operand) == O_FORCE && p.value == NULL);
    ENSURE(cli_next(&p, &operand) == O_SIZE && strcmp(p.value, "32x16") == 0);
    /* "-" is standard input, an operand; after "--" everything is */
    ENSURE(cli_next(&p, &operand) == 0 && strcmp(operand, "-") == 0);
    ENSURE(cli_next(&p, &operand) == 0 && strcmp(operand, "-q") == 0);
    ENSURE(cli_next(&p, &operand) == 0 && strcmp(operand, "--force") == 0);
    ENSURE(cli_next(&p, &operand) == -1);
}

/* Scans argv (NULL-terminated) to its first item; returns what cli_next did and
 * puts what it printed in *said. */
static int first_item(char **argv, int silent, const char **said)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    cli_parser p;
    cli_init(&p, argc, argv, &test_cmd);
    p.silent = silent;
    const char *operand;
    if (!capture_begin())
        return 99;
    int r = cli_next(&p, &operand);
    *said = capture_end();
    return r;
}

static void test_option_errors_name_the_option(void)
{
    static const struct { char *arg; const char *said; } cases[] = {
        { "--nope", "poyo: --nope: unknown option (see poyo --help)\n" },
        { "--nope=3", "poyo: --nope: unknown option (see poyo --help)\n" },
        { "-x", "poyo: -x: unknown option (see poyo --help)\n" },
        { "-fq", "poyo: -fq: unknown option (short options cannot be combined)\n" },
        { "--force=1", "poyo: --force: takes no value\n" },
        { "--size", "poyo: --size: needs a value\n" },
        { "-o", "poyo: -o: needs a value\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[] = { "poyo", cases[i].arg, NULL };
        const char *said;
        ENSURE_MSG(first_item(argv, 0, &said) == -2, "%s", cases[i].arg);
        ENSURE_MSG(strcmp(said, cases[i].said) == 0, "%s: said '%s'", cases[i].arg, said);
        /* a silent parser says nothing and fails the same way */
        ENSURE(first_item(argv, 1, &said) == -2 && said[0] == '\0');
    }
}

static void test_messages_are_one_safe_line(void)
{
    ENSURE(capture_begin());
    cli_error("a\nb\033[2J.png", "cannot open: %s", "gone");
    cli_note(NULL, "%d written", 3);
    cli_error("", "no name");
    ENSURE_MSG(strcmp(capture_end(), "poyo: a\\012b\\033[2J.png: cannot open: gone\npoyo: 3 written\npoyo: no name\n") == 0,
               "said '%s'", captured);
}

/* Runs a parser and returns what it printed; *ok gets its result. */
#define SAYS(ok, call) (capture_begin() ? ((ok) = (call), capture_end()) : "capture failed")

/* Scans "poyo OPT VALUE" with subcommand cmd's table into *p: 1 when cli_next
 * returned the option, 0 when it refused it; *said gets what it printed. */
static int scan_option(const char *cmd, const char *opt, const char *value, cli_parser *p, const char **said)
{
    char *argv[] = { "poyo", (char *)opt, (char *)value, NULL };
    const char *operand;
    cli_init(p, 3, argv, cli_command_find(cmd));
    int r = -2;
    *said = SAYS(r, cli_next(p, &operand));
    return r > 0;
}

static void test_sizes(void)
{
    static const struct { const char *s; int w, h; const char *said; } cases[] = {
        { "128", 128, 128, "" },
        { "200x100", 200, 100, "" },
        { "64X32", 64, 32, "" },
        { "4096x1", 4096, 1, "" },
        { "0", 0, 0, "poyo: --size: must be 1 to 4096 pixels per side, not 0\n" },
        { "4097x1", 0, 0, "poyo: --size: must be 1 to 4096 pixels per side, not 4097x1\n" },
        { "99999999999999999999", 0, 0, "poyo: --size: must be 1 to 4096 pixels per side, not 99999999999999999999\n" },
        { "12x", 0, 0, "poyo: --size: '12x' is not a size like 128x128 or 128\n" },
        { "x12", 0, 0, "poyo: --size: 'x12' is not a size like 128x128 or 128\n" },
        { "12y", 0, 0, "poyo: --size: '12y' is not a size like 128x128 or 128\n" },
        { "12x8 ", 0, 0, "poyo: --size: '12x8 ' is not a size like 128x128 or 128\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int ok = 0, w = 0, h = 0;
        const char *said = SAYS(ok, cli_size("--size", cases[i].s, &w, &h));
        ENSURE_MSG(strcmp(said, cases[i].said) == 0, "%s: said '%s'", cases[i].s, said);
        ENSURE_MSG(ok == (cases[i].w > 0), "%s", cases[i].s);
        if (ok)
            ENSURE_MSG(w == cases[i].w && h == cases[i].h, "%s: %dx%d", cases[i].s, w, h);
    }
}

static void test_byte_counts(void)
{
    /* the man page: 128K and 300KB are thousands, 256KiB is 256x1024, 1M a
     * million, 2G two thousand millions, 1GiB 1024x1024x1024 */
    static const struct { const char *s; long long bytes; } good[] = {
        { "128K", 128000 }, { "300KB", 300000 }, { "256KiB", 262144 }, { "1M", 1000000 }, { "1mb", 1000000 },
        { "2MiB", 2097152 }, { "2G", 2000000000 }, { "3GB", 3000000000LL }, { "1GiB", 1073741824 },
        { "5000", 5000 }, { "12B", 12 }, { "1.5K", 1500 }, { "1000G", 1000000000000LL },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int ok = 0;
        long long b = 0;
        const char *said = SAYS(ok, cli_bytes("--max-bytes", good[i].s, 1, CLI_MAX_BYTES_MAX, &b));
        ENSURE_MSG(ok && said[0] == '\0' && b == good[i].bytes, "%s: %lld, said '%s'", good[i].s, b, said);
    }
    static const struct { const char *s; const char *said; } bad[] = {
        { "0", "poyo: --max-bytes: '0' is not a size (like 128K, 256KiB, 300KB or 2G)\n" },
        { "abc", "poyo: --max-bytes: 'abc' is not a size (like 128K, 256KiB, 300KB or 2G)\n" },
        { "5X", "poyo: --max-bytes: '5X' is not a size (like 128K, 256KiB, 300KB or 2G)\n" },
        { "inf", "poyo: --max-bytes: 'inf' is not a size (like 128K, 256KiB, 300KB or 2G)\n" },
        { "1001G", "poyo: --max-bytes: must be 1 byte to 1 TB, not 1001G\n" },
        { "0.4", "poyo: --max-bytes: must be 1 byte to 1 TB, not 0.4\n" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int ok = 1;
        long long b = -7;
        const char *said = SAYS(ok, cli_bytes("--max-bytes", bad[i].s, 1, CLI_MAX_BYTES_MAX, &b));
        ENSURE_MSG(!ok && b == -7 && strcmp(said, bad[i].said) == 0, "%s: said '%s'", bad[i].s, said);
    }
    /* --max-memory's range, as poyo animate declares it */
    cli_parser p;
    const char *said;
    ENSURE(!scan_option("animate", "--max-memory", "15MiB", &p, &said));
    ENSURE_MSG(strcmp(said, "poyo: --max-memory: must be 16MiB to 1024GiB, not 15MiB\n") == 0, "%s", said);
    ENSURE(scan_option("animate", "--max-memory", "16MiB", &p, &said) && p.bytes == 16777216 && said[0] == '\0');
    /* the top of the range is 1024 GiB, more than --max-bytes's 1 TB */
    ENSURE_MSG(scan_option("animate", "--max-memory", "1024GiB", &p, &said) && p.bytes == 1099511627776LL, "%s", said);
    ENSURE(!scan_option("animate", "--max-memory", "1025GiB", &p, &said));
    ENSURE_MSG(strcmp(said, "poyo: --max-memory: must be 16MiB to 1024GiB, not 1025GiB\n") == 0, "%s", said);
    ENSURE(!scan_option("animate", "--max-memory", "junk", &p, &said));
    ENSURE(strncmp(said, "poyo: --max-memory: 'junk' is not a size", 40) == 0);
}

static void test_numbers_and_pairs(void)
{
    int ok = 0;
    double d = 0;
    const char *said = SAYS(ok, cli_double("--hz", "2.5e0", &d));
    ENSURE(ok && d == 2.5 && said[0] == '\0');
    const char *not_numbers[] = { "", "nan", "inf", "3x", "1e400", " " };
    for (size_t i = 0; i < sizeof not_numbers / sizeof not_numbers[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "poyo: --hz: '%s' is not a number\n", not_numbers[i]);
        said = SAYS(ok, cli_double("--hz", not_numbers[i], &d));
        ENSURE_MSG(!ok && strcmp(said, want) == 0, "'%s': said '%s'", not_numbers[i], said);
    }
    int n = 0;
    said = SAYS(ok, cli_int("--grid", "12", 8, 12, &n));
    ENSURE(ok && n == 12 && said[0] == '\0');
    said = SAYS(ok, cli_int("--grid", "13", 8, 12, &n));
    ENSURE_MSG(!ok && strcmp(said, "poyo: --grid: must be 8 to 12, not 13\n") == 0, "%s", said);
    said = SAYS(ok, cli_int("--grid", "3.5", 8, 12, &n));
    ENSURE_MSG(!ok && strcmp(said, "poyo: --grid: '3.5' is not a whole number\n") == 0, "%s", said);
    said = SAYS(ok, cli_int("--grid", "99999999999999999999", 8, 12, &n));
    ENSURE_MSG(!ok && strcmp(said, "poyo: --grid: '99999999999999999999' is not a whole number\n") == 0, "%s", said);
    cli_parser p;
    ENSURE(scan_option("rope", "--max-pixels", "1000000000", &p, &said) && p.inum == 1000000000);
    ENSURE(!scan_option("rope", "--max-pixels", "0", &p, &said));
    ENSURE_MSG(strcmp(said, "poyo: --max-pixels: must be 1 to 1000000000, not 0\n") == 0, "%s", said);

    double x = 0, y = 0;
    said = SAYS(ok, cli_pair("--at", "0.3,-0.4", &x, &y));
    ENSURE(ok && x == 0.3 && y == -0.4 && said[0] == '\0');
    const char *not_pairs[] = { "0.3", "0.3,", ",0.4", "nan,0", "0,inf", "1,2,3", "1;2" };
    for (size_t i = 0; i < sizeof not_pairs / sizeof not_pairs[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "poyo: --at: '%s' is not a pair X,Y\n", not_pairs[i]);
        said = SAYS(ok, cli_pair("--at", not_pairs[i], &x, &y));
        ENSURE_MSG(!ok && strcmp(said, want) == 0, "'%s': said '%s'", not_pairs[i], said);
    }
}

static void test_colours(void)
{
    static const struct { const char *s; unsigned rgb; } good[] = {
        { "red", 0xff0000 }, { "RED", 0xff0000 }, { "navy", 0x000080 }, { "skyblue", 0x87ceeb },
        { "#abc", 0xaabbcc }, { "#A0B1C2", 0xa0b1c2 }, { "#000", 0 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int ok = 0;
        unsigned c = 1;
        const char *said = SAYS(ok, cli_color("--color", good[i].s, &c));
        ENSURE_MSG(ok && c == good[i].rgb && said[0] == '\0', "%s: %06x", good[i].s, c);
    }
    const char *bad[] = { "blurple", "#12345", "abc123", "#ggg", "" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[160];
        snprintf(want, sizeof want,
                 "poyo: --color: '%s' is not a colour (#rrggbb, #rgb or a name such as red, orange, white, black)\n",
                 bad[i]);
        int ok = 1;
        unsigned c = 7;
        const char *said = SAYS(ok, cli_color("--color", bad[i], &c));
        ENSURE_MSG(!ok && c == 7 && strcmp(said, want) == 0, "'%s': said '%s'", bad[i], said);
    }
}

/* Scans an encoder option with poyo sdf's table and applies it to d: 1, or 0
 * when refused (*said: what was printed). */
static int encoder_option(const char *opt, const char *v, output_def *d, const char **said)
{
    cli_parser p;
    return scan_option("sdf", opt, v, &p, said) && cli_output_option(&p, d);
}

static void test_encoder_options(void)
{
    output_def d = output_default_def();
    const char *said;
    ENSURE(encoder_option("--quality", "90", &d, &said) && said[0] == '\0');
    ENSURE(d.webp.quality == 90 && d.quant.quality_max == 90 && d.webp.lossy == 1);
    ENSURE(encoder_option("--colors", "16", &d, &said) && d.quant.colors == 16);
    ENSURE(encoder_option("--dither", "0.5", &d, &said) && d.quant.dither == 0.5);
    ENSURE(encoder_option("--alpha-threshold", "1", &d, &said) && d.quant.alpha_threshold == 1);
    ENSURE(encoder_option("--format", "webm", &d, &said) && d.format == FORMAT_WEBM);
    cli_parser p;
    ENSURE(scan_option("animate", "--lossy-gif", "255", &p, &said) && cli_output_option(&p, &d) && d.quant.lossy == 255);
    static const struct { const char *opt, *v, *said; } bad[] = {
        { "--colors", "1", "poyo: --colors: must be 2 to 256, not 1\n" },
        { "--dither", "1.5", "poyo: --dither: must be 0 to 1, not 1.5\n" },
        { "--dither", "lots", "poyo: --dither: 'lots' is not a number\n" },
        { "--alpha-threshold", "0", "poyo: --alpha-threshold: must be 1 to 255, not 0\n" },
        { "--format", "bmp", "poyo: --format: must be gif, apng, webp or webm, not 'bmp'\n" },
        { "--quality", "101", "poyo: --quality: must be 0 to 100, not 101\n" },
    };
    output_def before = d;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ENSURE(!encoder_option(bad[i].opt, bad[i].v, &d, &said));
        ENSURE_MSG(strcmp(said, bad[i].said) == 0, "%s %s: said '%s'", bad[i].opt, bad[i].v, said);
    }
    ENSURE(d.quant.colors == before.quant.colors && d.quant.dither == before.quant.dither &&
           d.format == before.format && d.webp.quality == before.webp.quality);
}

static void test_output_names(void)
{
    static const struct { const char *in, *ext, *tag, *want; } cases[] = {
        { "dir/stamp.png", ".gif", "poyo", "stamp.gif" },
        { "dir/stamp.png", ".png", "poyo", "stamp.poyo.png" },      /* an APNG is a .png */
        { "stamp.png", ".png", "line", "stamp.line.png" },
        { "anim.gif", ".gif", "poyo", "anim.poyo.gif" },            /* never the input's own name */
        { "ANIM.GIF", ".gif", "slack", "ANIM.slack.gif" },
        { "a.b/noext", ".webp", "poyo", "noext.webp" },
        { ".hidden", ".gif", "poyo", ".hidden.gif" },               /* a leading dot is no extension */
        { "x.tar.gz", ".webm", "poyo", "x.tar.webm" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        size_t n = cli_output_stem(cases[i].in, cases[i].ext, cases[i].tag, buf, sizeof buf);
        ENSURE_MSG(strcmp(buf, cases[i].want) == 0 && n == strlen(cases[i].want), "%s -> %s", cases[i].in, buf);
        ENSURE(cli_output_stem(cases[i].in, cases[i].ext, cases[i].tag, NULL, 0) == n);
    }
    char small[6];
    ENSURE(cli_output_stem("stamp.png", ".gif", "poyo", small, sizeof small) == 9 && strcmp(small, "stamp") == 0);
    char *beside = cli_output_beside("a/b/c.png", ".gif", "poyo");
    ENSURE(beside && strcmp(beside, "a/b/c.gif") == 0);
    free(beside);
    beside = cli_output_beside("c.png", ".png", "signal");
    ENSURE(beside && strcmp(beside, "c.signal.png") == 0);
    free(beside);
}

static void test_file_mode_follows_the_umask(void)
{
    mode_t old = umask(027);
    mode_t m = cli_file_mode();
    mode_t now = umask(old);
    ENSURE(m == 0640 && now == 027);
    umask(0);
    m = cli_file_mode();
    umask(old);
    ENSURE(m == 0666);
}

/* cli_json_string's output for s. */
static const char *json(const char *s)
{
    static char buf[256];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    if (!f)
        return "";
    cli_json_string(f, s);
    fclose(f);
    return buf;
}

static void test_json_strings(void)
{
    ENSURE(strcmp(json("plain.png"), "\"plain.png\"") == 0);
    ENSURE(strcmp(json(NULL), "\"\"") == 0);
    ENSURE_MSG(strcmp(json("a\"b\\c\n\x01\x7f"), "\"a\\\"b\\\\c\\u000a\\u0001\\u007f\"") == 0, "%s", json("a\"b\\c\n\x01\x7f"));
    /* valid UTF-8 of every length passes through */
    ENSURE(strcmp(json("\xc3\xa9\xe3\x81\x99\xf0\x9f\x98\x80"), "\"\xc3\xa9\xe3\x81\x99\xf0\x9f\x98\x80\"") == 0);
    /* every byte that is not part of valid UTF-8 becomes U+FFFD */
    static const struct { const char *in, *want; } bad[] = {
        { "a\xff" "b", "\"a\\ufffdb\"" },                          /* never valid */
        { "\xc0\xaf", "\"\\ufffd\\ufffd\"" },                      /* overlong '/' */
        { "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },           /* overlong, 3 bytes */
        { "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },           /* a surrogate */
        { "\xf0\x80\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* overlong, 4 bytes */
        { "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* past U+10FFFF */
        { "\xe2\x82", "\"\\ufffd\\ufffd\"" },                      /* cut short */
        { "\x80x", "\"\\ufffdx\"" },                               /* a stray continuation byte */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ENSURE_MSG(strcmp(json(bad[i].in), bad[i].want) == 0, "case %zu: %s", i, json(bad[i].in));
}

const struct test_case test_cases[] = {
    { "scans_options_and_operands", test_scans_options_and_operands },
    { "option_errors_name_the_option", test_option_errors_name_the_option },
    { "messages_are_one_safe_line", test_messages_are_one_safe_line },
    { "sizes", test_sizes },
    { "byte_counts", test_byte_counts },
    { "numbers_and_pairs", test_numbers_and_pairs },
    { "colours", test_colours },
    { "encoder_options", test_encoder_options },
    { "output_names", test_output_names },
    { "file_mode_follows_the_umask", test_file_mode_follows_the_umask },
    { "json_strings", test_json_strings },
    { NULL, NULL },
};
