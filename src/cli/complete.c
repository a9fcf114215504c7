/* complete.c - shell completion scripts for bash, zsh and fish, written from the
 * option tables (options.c): the subcommands, each one's options, the words an
 * option takes (impulses, presets, formats, anchors) and the files it names. */
#include "options.h"

#include <string.h>

/* The image files poyo reads, and so offers as inputs. */
static const char *const image_exts[] = { "png", "jpg", "jpeg", "webp", "gif", "svg" };
#define N_IMAGE_EXTS (sizeof image_exts / sizeof image_exts[0])
/* The files poyo check reads. */
static const char *const anim_exts[] = { "gif", "png", "apng", "webp", "webm" };
#define N_ANIM_EXTS (sizeof anim_exts / sizeof anim_exts[0])

/* Calls fn for every option cmd takes (its own, then those it inherits and does
 * not shadow), hidden ones included: they are typed too. */
static void each_option(const cli_command *cmd, void (*fn)(FILE *, const cli_command *, const cli_opt *), FILE *out)
{
    for (const cli_command *c = cmd; c; c = c->inherits)
        for (const cli_opt *o = c->opts; o->name; o++) {
            if (o->kind == CLI_HEADING)
                continue;
            int shadowed = 0;
            for (const cli_command *d = cmd; d != c && !shadowed; d = d->inherits)
                for (const cli_opt *e = d->opts; e->name && !shadowed; e++)
                    shadowed = e->kind != CLI_HEADING && (strcmp(e->name, o->name) == 0 ||
                                                          (o->short_name && e->short_name == o->short_name));
            if (!shadowed)
                fn(out, cmd, o);
        }
}

/* An enum option's words separated by spaces. */
static void put_words(FILE *out, const cli_opt *o)
{
    char buf[64];
    const char *w;
    for (int i = 0; (w = cli_opt_word(o, i, buf, sizeof buf)) != NULL; i++)
        fprintf(out, "%s%s", i ? " " : "", w);
}

/* The extensions completion offers for a file option (or the command's inputs). */
static void file_exts(const cli_opt *o, const char *const **exts, size_t *n)
{
    static const char *const png[] = { "png" };
    static const char *const outputs[] = { "gif", "png", "apng", "webp", "webm" };
    *exts = NULL;
    *n = 0;
    if (o && o->files == CLI_FILES_PNG) {
        *exts = png;
        *n = 1;
    } else if (o && o->files == CLI_FILES_OUTPUT) {
        *exts = outputs;
        *n = sizeof outputs / sizeof outputs[0];
    } else if (o && o->files == CLI_FILES_IMAGE) {
        *exts = image_exts;
        *n = N_IMAGE_EXTS;
    }
}

/* ---- bash ------------------------------------------------------------------- */

/* 1 when completion has nothing to offer for o's value (a number, a colour, text). */
static int typed_value(const cli_opt *o)
{
    return o->kind != CLI_FLAG && o->kind != CLI_ENUM && o->kind != CLI_DIR && o->kind != CLI_FILE;
}

/* 1 until the first alternative of a case pattern is written. */
static int pattern_first;

/* "cmd:--name|cmd:-x" for an option whose value is typed, after a "|" but for the first. */
static void typed_pattern(FILE *out, const cli_command *cmd, const cli_opt *o)
{
    if (!typed_value(o))
        return;
    fprintf(out, "%s%s:--%s", pattern_first ? "" : "|", cmd->name, o->name);
    if (o->short_name)
        fprintf(out, "|%s:-%c", cmd->name, o->short_name);
    pattern_first = 0;
}

/* Every option whose value is typed, of every subcommand, as one case pattern. */
static void typed_patterns(FILE *out)
{
    pattern_first = 1;
    for (int i = 0; i < cli_command_count; i++)
        each_option(&cli_commands[i], typed_pattern, out);
}

/* The label of a shell case for the value after option o of cmd
 * ("cmd:--name|cmd:-x)"), written unless o takes no value or one typed by
 * hand; returns whether it was. bash and zsh both match "$cmd:$prev". */
static int value_case_label(FILE *out, const cli_command *cmd, const cli_opt *o)
{
    if (o->kind == CLI_FLAG || typed_value(o))
        return 0;
    fprintf(out, "    %s:--%s", cmd->name, o->name);
    if (o->short_name)
        fprintf(out, "|%s:-%c", cmd->name, o->short_name);
    fputs(")\n        ", out);
    return 1;
}

static void bash_value_case(FILE *out, const cli_command *cmd, const cli_opt *o)
{
    if (!value_case_label(out, cmd, o))
        return;
    if (o->kind == CLI_ENUM) {
        fputs("COMPREPLY=($(compgen -W '", out);
        put_words(out, o);
        fputs("' -- \"$cur\")) ;;\n", out);
    } else if (o->kind == CLI_DIR) {
        fputs("COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n", out);
    } else if (o->kind == CLI_FILE) {
        const char *const *exts;
        size_t n;
        file_exts(o, &exts, &n);
        fputs("_poyo_files", out);
        for (size_t i = 0; i < n; i++)
            fprintf(out, " %s", exts[i]);
        fputs(" ;;\n", out);
    }
}

static void bash_option_word(FILE *out, const cli_command *cmd, const cli_opt *o)
{
    (void)cmd;
    fprintf(out, " --%s", o->name);
    if (o->short_name)
        fprintf(out, " -%c", o->short_name);
}

static void print_bash(FILE *out)
{
    fputs("# bash completion for poyo (written by poyo --completion bash)\n"
          "# _poyo_files EXT...: directories and the files with one of the extensions (any case)\n"
          "_poyo_files() {\n"
          "    local e\n"
          "    COMPREPLY=($(compgen -d -- \"$cur\"))\n"
          "    for e in \"$@\"; do\n"
          "        COMPREPLY+=($(compgen -f -X \"!*.$e\" -- \"$cur\") $(compgen -f -X \"!*.${e^^}\" -- \"$cur\"))\n"
          "    done\n"
          "    [ $# -eq 0 ] && COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
          "}\n"
          "\n"
          "_poyo() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=animate\n"
          "    case ${COMP_WORDS[1]} in\n    ",
          out);
    for (int i = 0; i < cli_command_count; i++)
        fprintf(out, "%s%s", i ? "|" : "", cli_commands[i].name);
    fputs(") [ \"$COMP_CWORD\" -gt 1 ] && cmd=${COMP_WORDS[1]} ;;\n    esac\n"
          "    # the value of an option\n"
          "    case $cmd:$prev in\n",
          out);
    for (int i = 0; i < cli_command_count; i++)
        each_option(&cli_commands[i], bash_value_case, out);
    fputs("    # a number, a colour or text: nothing to offer\n    ", out);
    typed_patterns(out);
    fputs(")\n        COMPREPLY=() ;;\n", out);
    fputs("    *)\n        if [[ $cur == -* ]]; then\n            case $cmd in\n", out);
    for (int i = 0; i < cli_command_count; i++) {
        fprintf(out, "            %s) COMPREPLY=($(compgen -W '", cli_commands[i].name);
        each_option(&cli_commands[i], bash_option_word, out);
        fputs("' -- \"$cur\")) ;;\n", out);
    }
    fputs("            esac\n        elif [ \"$cmd\" = check ]; then\n            _poyo_files", out);
    for (size_t i = 0; i < N_ANIM_EXTS; i++)
        fprintf(out, " %s", anim_exts[i]);
    fputs("\n        else\n            _poyo_files", out);
    for (size_t i = 0; i < N_IMAGE_EXTS; i++)
        fprintf(out, " %s", image_exts[i]);
    fputs("\n            [ \"$COMP_CWORD\" -eq 1 ] && COMPREPLY+=($(compgen -W '", out);
    for (int i = 0; i < cli_command_count; i++)
        fprintf(out, "%s%s", i ? " " : "", cli_commands[i].name);
    fputs("' -- \"$cur\"))\n        fi ;;\n    esac\n}\n"
          "complete -o filenames -F _poyo poyo\n",
          out);
}

/* ---- zsh -------------------------------------------------------------------- */

static void zsh_value_case(FILE *out, const cli_command *cmd, const cli_opt *o)
{
    if (!value_case_label(out, cmd, o))
        return;
    if (o->kind == CLI_ENUM) {
        fputs("compadd -- ", out);
        put_words(out, o);
        fputs(" ;;\n", out);
    } else if (o->kind == CLI_DIR) {
        fputs("_files -/ ;;\n", out);
    } else if (o->kind == CLI_FILE) {
        const char *const *exts;
        size_t n;
        file_exts(o, &exts, &n);
        if (n == 0) {
            fputs("_files ;;\n", out);
        } else {
            fputs("_files -g '(#i)*.(", out);
            for (size_t i = 0; i < n; i++)
                fprintf(out, "%s%s", i ? "|" : "", exts[i]);
            fputs(")' ;;\n", out);
        }
    }
}

static void print_zsh(FILE *out)
{
    fputs("#compdef poyo\n"
          "# zsh completion for poyo (written by poyo --completion zsh)\n"
          "_poyo() {\n"
          "    setopt localoptions extendedglob\n"
          "    local cmd=animate prev=${words[CURRENT-1]} cur=${words[CURRENT]}\n"
          "    if (( CURRENT > 2 )) && [[ ${words[2]} == (",
          out);
    for (int i = 0; i < cli_command_count; i++)
        fprintf(out, "%s%s", i ? "|" : "", cli_commands[i].name);
    fputs(") ]]; then\n        cmd=${words[2]}\n    fi\n    case $cmd:$prev in\n", out);
    for (int i = 0; i < cli_command_count; i++)
        each_option(&cli_commands[i], zsh_value_case, out);
    fputs("    ", out);
    typed_patterns(out);
    fputs(")\n        _message 'a value' ;;\n", out);
    fputs("    *)\n        if [[ $cur == -* ]]; then\n            case $cmd in\n", out);
    for (int i = 0; i < cli_command_count; i++) {
        fprintf(out, "            %s) compadd --", cli_commands[i].name);
        each_option(&cli_commands[i], bash_option_word, out);
        fputs(" ;;\n", out);
    }
    fputs("            esac\n        elif [[ $cmd == check ]]; then\n            _files -g '(#i)*.(", out);
    for (size_t i = 0; i < N_ANIM_EXTS; i++)
        fprintf(out, "%s%s", i ? "|" : "", anim_exts[i]);
    fputs(")'\n        else\n            (( CURRENT == 2 )) && compadd --", out);
    for (int i = 0; i < cli_command_count; i++)
        fprintf(out, " %s", cli_commands[i].name);
    fputs("\n            _files -g '(#i)*.(", out);
    for (size_t i = 0; i < N_IMAGE_EXTS; i++)
        fprintf(out, "%s%s", i ? "|" : "", image_exts[i]);
    fputs(")'\n        fi ;;\n    esac\n}\n_poyo \"$@\"\n", out);
}

/* ---- fish ------------------------------------------------------------------- */

/* Writes s in single quotes for fish (a quote or backslash escaped). */
static void fish_quoted(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('\'', out);
}

static void fish_option(FILE *out, const cli_command *cmd, const cli_opt *o)
{
    fprintf(out, "complete -c poyo -n '__poyo_cmd %s' -l %s", cmd->name, o->name);
    if (o->short_name)
        fprintf(out, " -s %c", o->short_name);
    if (o->kind == CLI_ENUM) {
        fputs(" -x -a '", out);
        put_words(out, o);
        fputc('\'', out);
    } else if (o->kind == CLI_DIR) {
        fputs(" -x -a '(__fish_complete_directories)'", out);
    } else if (o->kind == CLI_FILE) {
        fputs(" -r -F", out);
    } else if (o->kind != CLI_FLAG) {
        fputs(" -x", out);
    }
    char help[96];
    snprintf(help, sizeof help, "%s", o->help);
    size_t n = strcspn(help, ";(");
    while (n > 0 && (help[n - 1] == ' ' || help[n - 1] == ':'))
        n--;
    help[n] = '\0';
    fputs(" -d ", out);
    fish_quoted(out, help);
    fputc('\n', out);
}

static void print_fish(FILE *out)
{
    fputs("# fish completion for poyo (written by poyo --completion fish)\n"
          "function __poyo_cmd --description 'is the poyo subcommand being typed $argv[1]?'\n"
          "    set -l words (commandline -opc)\n"
          "    set -l cmd animate\n"
          "    if test (count $words) -ge 2; and contains -- $words[2]",
          out);
    for (int i = 0; i < cli_command_count; i++)
        fprintf(out, " %s", cli_commands[i].name);
    fputs("\n        set cmd $words[2]\n    end\n    test \"$cmd\" = \"$argv[1]\"\nend\n"
          "complete -c poyo -f\n"
          "complete -c poyo -n '__fish_use_subcommand' -a '",
          out);
    for (int i = 0; i < cli_command_count; i++)
        fprintf(out, "%s%s", i ? " " : "", cli_commands[i].name);
    fputs("'\ncomplete -c poyo -n 'not __poyo_cmd check' -a '(__fish_complete_suffix", out);
    for (size_t i = 0; i < N_IMAGE_EXTS; i++)
        fprintf(out, " .%s", image_exts[i]);
    fputs(")'\ncomplete -c poyo -n '__poyo_cmd check' -a '(__fish_complete_suffix", out);
    for (size_t i = 0; i < N_ANIM_EXTS; i++)
        fprintf(out, " .%s", anim_exts[i]);
    fputs(")'\n", out);
    for (int i = 0; i < cli_command_count; i++)
        each_option(&cli_commands[i], fish_option, out);
}

int cli_print_completion(FILE *out, const char *shell)
{
    if (strcmp(shell, "bash") == 0)
        print_bash(out);
    else if (strcmp(shell, "zsh") == 0)
        print_zsh(out);
    else if (strcmp(shell, "fish") == 0)
        print_fish(out);
    else
        return 0;
    return 1;
}
