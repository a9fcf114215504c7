/* main.c - poyo's entry point: picks the subcommand and hands it argv. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: poyo [animate] [OPTIONS] INPUT...   make a stamp jiggle (see poyo animate --help)\n"
            "       poyo text [OPTIONS] TEXT...          words drawn as a stamp, jiggling (see poyo text --help)\n"
            "       poyo rope [OPTIONS] [STAMP]          a stamp swinging on a rope (a phone charm)\n"
            "       poyo path [OPTIONS] [STAMP]          involute paths; a stamp moving along one\n"
            "       poyo sdf [OPTIONS] [STAMP]           distance-field scenes; a stamp falling in\n"
            "       poyo check --preset NAME FILE...     does a file meet a platform's rules?\n"
            "       poyo --list-impulses                 the impulses and their parameters\n"
            "       poyo --completion bash|zsh|fish      a shell completion script\n"
            "       poyo --help | --version\n"
            "poyo reads an image, treats it as a soft elastic body, presses it and writes a looping GIF.\n"
            "Exit status: 0 success, 1 some input failed, 2 usage error. See man poyo.\n");
}

int main(int argc, char **argv)
{
    /* a write past a file size limit must fail with EFBIG, not kill us mid-file */
    signal(SIGXFSZ, SIG_IGN);
    if (argc >= 2) {
        const char *c = argv[1];
        if (strcmp(c, "--help") == 0 || strcmp(c, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(c, "--version") == 0) {
            printf("poyo %s\n", POYO_VERSION);
            return 0;
        }
        if (strcmp(c, "--completion") == 0) {
            if (argc != 3 || !cli_print_completion(stdout, argv[2])) {
                cli_error(c, "must be bash, zsh or fish, not '%s'", argc > 2 ? argv[2] : "");
                return 2;
            }
            return fflush(stdout) == 0 ? 0 : 1;
        }
        if (strcmp(c, "animate") == 0)
            return cmd_animate(argc - 1, argv + 1);
        if (strcmp(c, "text") == 0)
            return cmd_text(argc - 1, argv + 1);
        if (strcmp(c, "rope") == 0)
            return cmd_rope(argc - 1, argv + 1);
        if (strcmp(c, "path") == 0)
            return cmd_path(argc - 1, argv + 1);
        if (strcmp(c, "sdf") == 0)
            return cmd_sdf(argc - 1, argv + 1);
        if (strcmp(c, "check") == 0)
            return cmd_check(argc - 1, argv + 1);
    } else {
        cli_error(NULL, "no input file (usage: poyo [animate] [OPTIONS] INPUT...; see poyo --help)");
        return 2;
    }
    return cmd_animate(argc, argv);
}
