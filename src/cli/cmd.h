/* cmd.h - the subcommands; each parses its own argv (argv[0] is its name)
 * and returns the process exit status (0 ok, 1 input failed, 2 usage). */
#ifndef POYO_CMD_H
#define POYO_CMD_H

#include <stdio.h>

/* poyo [animate] [OPTIONS] INPUT... */
int cmd_animate(int argc, char **argv);
/* poyo text [OPTIONS] TEXT... - text drawn as a stamp, then as poyo animate. */
int cmd_text(int argc, char **argv);
/* poyo rope [OPTIONS] [STAMP] - a stamp hanging from a swinging rope, or particle CSV. */
int cmd_rope(int argc, char **argv);
/* poyo path [OPTIONS] [STAMP] - involute paths: SVG, samples, nearest points, a stamp moving along. */
int cmd_path(int argc, char **argv);
/* poyo sdf [OPTIONS] [STAMP] - signed distance scenes: a stamp falling in, field pictures, queries. */
int cmd_sdf(int argc, char **argv);
/* poyo check --preset NAME FILE... - lists every platform rule each file breaks. */
int cmd_check(int argc, char **argv);
/* Parses and checks the options of poyo animate without touching any file;
 * returns 0 or 2 as cmd_animate would (for the option-parser fuzzer). */
int cmd_animate_parse(int argc, char **argv);
/* Prints the impulse table of --list-impulses. */
void cmd_list_impulses(FILE *out);

#endif
