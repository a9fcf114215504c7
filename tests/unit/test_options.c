/* test_options.c - the option tables against the man page and themselves:
 * every declared option of every subcommand is an item of that subcommand's
 * part of man/poyo.1 stating the same range and default, every option the man
 * page lists there is declared, no table holds a name or letter twice, and a
 * value past either end of any range, or not a number, is refused in the one
 * shape "poyo: --OPTION: must be LO to HI UNIT, not VALUE". */
#include "test.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/preset.h"
#include "sim/impulse.h"

/* man/poyo.1 (the tests run from the top of the tree), or NULL. */
static char *read_man(void)
{
    FILE *f = fopen("man/poyo.1", "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Where each subcommand's part of the man page starts and ends. */
static const struct { const char *cmd, *from, *to; } parts[] = {
    { "animate", ".SH THE MAIN JOB", ".SH SUBCOMMANDS" },
    { "text", ".SS \"poyo text", ".SS \"poyo rope" },
    { "rope", ".SS \"poyo rope", ".SS \"poyo path" },
    { "path", ".SS \"poyo path", ".SS \"poyo sdf" },
    { "sdf", ".SS \"poyo sdf", ".SS \"poyo check" },
    { "check", ".SS \"poyo check", ".SH PRESETS" },
};

/* roff as plain words: requests' names and quotes dropped, \- as -, font
 * changes and \& removed, every line joined by one space. */
static void plain(const char *s, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    int line_start = 1;
    for (size_t i = 0; i < n && k + 2 < cap; i++) {
        if (line_start && s[i] == '.') {
            while (i < n && s[i] != ' ' && s[i] != '\n')
                i++;
            if (i >= n || s[i] == '\n') {
                line_start = 1;
                continue;
            }
        }
        line_start = 0;
        if (s[i] == '\\' && i + 1 < n) {
            char c = s[i + 1];
            if (c == '-') out[k++] = '-';
            else if (c == 'f') i++;                     /* \fB: one more below */
            else if (c == '(' && i + 3 < n) {           /* \(en, \(dq */
                out[k++] = s[i + 2] == 'd' ? '"' : '-';
                i += 2;
            }
            i++;
            continue;
        }
        if (s[i] == '"')
            continue;
        if (s[i] == '\n') {
            line_start = 1;
            out[k++] = ' ';
            continue;
        }
        out[k++] = s[i];
    }
    out[k] = '\0';
}

/* One item of the man page: its tag's option names and its paragraph. */
typedef struct item {
    char tag[256];
    char text[8192];
} item;

/* The items (".TP" tag and paragraph) of [s, end): up to cap of them. */
static int man_items(const char *s, const char *end, item *items, int cap)
{
    int n = 0;
    const char *p = s;
    while (n < cap && (p = strstr(p, "\n.TP\n")) && p < end) {
        const char *tag = p + 5, *body = strchr(tag, '\n');
        if (!body || body > end)
            break;
        const char *stop = body;
        while ((stop = strstr(stop + 1, "\n.")) && stop < end && strncmp(stop, "\n.TP\n", 5) != 0 &&
               strncmp(stop, "\n.SS", 4) != 0 && strncmp(stop, "\n.SH", 4) != 0)
            ;
        if (!stop || stop > end)
            stop = end;
        plain(tag, (size_t)(body - tag), items[n].tag, sizeof items[n].tag);
        plain(body + 1, (size_t)(stop - body - 1), items[n].text, sizeof items[n].text);
        n++;
        p = body;
    }
    return n;
}

/* 1 when text holds --name as a whole option name. */
static int names_option(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = text; (p = strstr(p, "--")) != NULL; p += 2)
        if (strncmp(p + 2, name, len) == 0 && !(isalnum((unsigned char)p[2 + len]) || p[2 + len] == '-'))
            return 1;
    return 0;
}

/* The item whose tag names --name, or NULL. */
static const item *find_item(const item *items, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (names_option(items[i].tag, name))
            return &items[i];
    return NULL;
}

static int mismatches;

static void mismatch(const char *cmd, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "    man page, poyo %s: ", cmd);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    mismatches++;
}

/* 1 when a default as default_of states it is a number, pair or size the man page must repeat. */
static int numeric_default(const char *d)
{
    return *d && strspn(d, "-0123456789.,x") == strlen(d);
}

/* Checks one declared row against its man page item. */
static void check_row(const char *cmd_name, const cli_command *cmd, const cli_opt *o, const item *it)
{
    char range[128], dflt[160], want[200];
    if (!it) {
        mismatch(cmd_name, "--%s is declared but has no item%s", o->name, "");
        return;
    }
    cli_opt_range_text(o, range, sizeof range);
    if (*range && !strstr(it->text, range) && !strstr(it->tag, range)) {
        /* the man page may leave the unit for its own words: "0.1 to 60" of "seconds" */
        char bare[128];
        snprintf(bare, sizeof bare, "%.10g to %.10g", o->min, o->max);
        if (o->kind == CLI_BYTES || !strstr(it->text, bare))
            mismatch(cmd_name, "--%s does not state its range %s", o->name, range);
    }
    cmd->default_of(o->id, dflt, sizeof dflt);
    snprintf(want, sizeof want, "default %s", dflt);
    if (numeric_default(dflt) && !strstr(it->text, want))
        mismatch(cmd_name, "--%s does not state '%s'", o->name, want);
}

static void test_every_option_is_in_the_man_page_with_its_range_and_default(void)
{
    char *man = read_man();
    ENSURE_MSG(man != NULL, "man/poyo.1 not found from the current folder");
    static item items[256];
    mismatches = 0;
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        const cli_command *cmd = cli_command_find(parts[k].cmd);
        const char *from = strstr(man, parts[k].from), *to = from ? strstr(from, parts[k].to) : NULL;
        ENSURE_MSG(cmd && from && to, "%s: no table or no part of the man page", parts[k].cmd);
        int n = man_items(from, to, items, 256);
        ENSURE_MSG(n >= 3, "%s: only %d items in the man page", parts[k].cmd, n);
        for (const cli_opt *o = cmd->opts; o->name; o++)
            if (o->kind != CLI_HEADING && !o->hidden && o->id != OPT_HELP)
                check_row(parts[k].cmd, cmd, o, find_item(items, n, o->name));
        /* and every option an item names is declared */
        for (int i = 0; i < n; i++)
            for (const char *p = items[i].tag; (p = strstr(p, "--")) != NULL; p += 2) {
                char name[64];
                size_t len = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
                snprintf(name, sizeof name, "%.*s", (int)(len < 60 ? len : 60), p + 2);
                int found = 0;
                for (const cli_command *c = cmd; c && !found; c = c->inherits)
                    for (const cli_opt *o = c->opts; o->name && !found; o++)
                        found = o->kind != CLI_HEADING && strcmp(o->name, name) == 0;
                if (len && !found)
                    mismatch(parts[k].cmd, "--%s is in the man page but not declared%s", name, "");
            }
    }
    free(man);
    ENSURE_MSG(mismatches == 0, "%d mismatches between the tables and man/poyo.1 (listed above)", mismatches);
}

static void test_tables_name_each_option_once(void)
{
    for (int k = 0; k < cli_command_count; k++) {
        const cli_command *cmd = &cli_commands[k];
        for (const cli_opt *a = cmd->opts; a->name; a++) {
            if (a->kind == CLI_HEADING)
                continue;
            ENSURE_MSG(a->id > 0 && a->help && *a->help, "%s --%s: no id or no help", cmd->name, a->name);
            ENSURE_MSG(!a->ranged || a->min < a->max, "%s --%s: an empty range", cmd->name, a->name);
            ENSURE_MSG((a->kind == CLI_FLAG) == (a->arg == NULL), "%s --%s: a flag names no value", cmd->name,
                       a->name);
            for (const cli_opt *b = a + 1; b->name; b++) {
                if (b->kind == CLI_HEADING)
                    continue;
                ENSURE_MSG(strcmp(a->name, b->name) != 0, "%s: --%s twice", cmd->name, a->name);
                ENSURE_MSG(!a->short_name || a->short_name != b->short_name, "%s: -%c twice", cmd->name,
                           a->short_name);
            }
        }
    }
}

/* What cli_next printed on stderr for "poyo OPT VALUE" with cmd's table, and
 * its result in *r. */
static const char *scan(const cli_command *cmd, const char *opt, const char *value, int *r)
{
    static char said[1024];
    char *argv[] = { "poyo", (char *)opt, (char *)value, NULL };
    char path[] = "/tmp/poyo-opt.XXXXXX";
    int fd = mkstemp(path);
    said[0] = '\0';
    if (fd < 0)
        return "capture failed";
    unlink(path);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    cli_parser p;
    const char *operand;
    cli_init(&p, 3, argv, cmd);
    *r = cli_next(&p, &operand);
    fflush(stderr);
    off_t n = lseek(STDERR_FILENO, 0, SEEK_CUR);
    if (n > 0 && lseek(STDERR_FILENO, 0, SEEK_SET) == 0) {
        ssize_t k = read(STDERR_FILENO, said, sizeof said - 1);
        said[k > 0 ? k : 0] = '\0';
    }
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fd);
    return said;
}

static void test_every_range_is_refused_in_one_shape(void)
{
    int checked = 0;
    for (int k = 0; k < cli_command_count; k++) {
        const cli_command *cmd = &cli_commands[k];
        for (const cli_opt *o = cmd->opts; o->name; o++) {
            if (o->kind == CLI_HEADING || !o->ranged || o->kind == CLI_SIZE || o->kind == CLI_BYTES)
                continue;
            char opt[64], range[128], v[2][64], want[320];
            snprintf(opt, sizeof opt, "--%s", o->name);
            cli_opt_range_text(o, range, sizeof range);
            double step = o->kind == CLI_INT ? 1.0 : (o->max - o->min) / 1000.0;
            snprintf(v[0], sizeof v[0], "%.10g", o->min - step);
            snprintf(v[1], sizeof v[1], "%.10g", o->max + step);
            for (int i = 0; i < 2; i++) {
                char value[80];
                snprintf(value, sizeof value, o->kind == CLI_PAIR ? "%s,0" : "%s", v[i]);
                if (o->or_zero && strtod(value, NULL) == 0.0)
                    continue;
                snprintf(want, sizeof want, "poyo: %s: must be %s%s%s%s%s, not %s\n", opt, range,
                         o->kind == CLI_PAIR ? " in both coordinates" : "", o->beyond ? " (" : "",
                         o->beyond ? o->beyond : "", o->beyond ? ")" : "", value);
                int r;
                const char *said = scan(cmd, opt, value, &r);
                ENSURE_MSG(r == -2 && strcmp(said, want) == 0, "poyo %s %s %s: said '%s', not '%s'", cmd->name, opt,
                           value, said, want);
                checked++;
            }
            /* both ends are taken */
            int r;
            snprintf(v[0], sizeof v[0], o->kind == CLI_PAIR ? "%.10g,%.10g" : "%.10g", o->min, o->max);
            const char *said = scan(cmd, opt, v[0], &r);
            ENSURE_MSG(r == o->id && said[0] == '\0', "poyo %s %s %s: said '%s'", cmd->name, opt, v[0], said);
            said = scan(cmd, opt, "abc", &r);
            snprintf(want, sizeof want, "poyo: %s: 'abc' is not a %s\n", opt,
                     o->kind == CLI_INT ? "whole number" : o->kind == CLI_PAIR ? "pair X,Y" : "number");
            ENSURE_MSG(r == -2 && strcmp(said, want) == 0, "poyo %s %s abc: said '%s'", cmd->name, opt, said);
        }
    }
    ENSURE_MSG(checked > 150, "only %d values checked", checked);
}

/* words(i) for i below n as "a, b or c" into buf. */
static void word_list(const char *(*word)(int i), int n, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ", word(i));
}

static const char *preset_name(int i) { return preset_at(i)->name; }
static const char *impulse_name(int i) { return impulse_get_info((impulse_kind)i)->name; }

/* The words of a row whose --help lists them come from its module's table: every preset
 * and every impulse is named, in order, in each command's --help. */
static void test_help_lists_every_word(void)
{
    char presets[512], impulses[512];
    word_list(preset_name, preset_count(), presets, sizeof presets);
    word_list(impulse_name, IMPULSE_COUNT, impulses, sizeof impulses);
    for (int k = 0; k < cli_command_count; k++) {
        const cli_command *cmd = &cli_commands[k];
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ENSURE(f);
        cli_print_options(f, cmd, NULL, NULL);
        fclose(f);
        /* the lines joined, so that a list wrapped over several lines is found */
        for (char *c = text; *c; c++)
            if (*c == '\n')
                *c = ' ';
        for (char *c = strstr(text, "  "); c; c = strstr(c, "  "))
            memmove(c, c + 1, strlen(c + 1) + 1);
        for (const cli_opt *o = cmd->opts; o->name; o++) {
            if (o->id == OPT_PRESET)
                ENSURE_MSG(strstr(text, presets), "%s --help: no \"%s\"", cmd->name, presets);
            if (o->id == OPT_IMPULSE)
                ENSURE_MSG(strstr(text, impulses), "%s --help: no \"%s\"", cmd->name, impulses);
        }
        free(text);
    }
}

const struct test_case test_cases[] = {
    { "every_option_is_in_the_man_page_with_its_range_and_default",
      test_every_option_is_in_the_man_page_with_its_range_and_default },
    { "tables_name_each_option_once", test_tables_name_each_option_once },
    { "help_lists_every_word", test_help_lists_every_word },
    { "every_range_is_refused_in_one_shape", test_every_range_is_refused_in_one_shape },
    { NULL, NULL },
};
