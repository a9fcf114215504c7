/* cmd.h - the subcommands; each parses its own argv (argv[0] is its name)
 * and returns the process exit status (0 ok, 1 input failed, 2 usage). */
#ifndef POYO_CMD_H
#define POYO_CMD_H

#include <stdio.h>

/* poyo [animate] [OPTIONS] INPUT... */
int cmd_animate(int argc, char **argv);
/* Prints the impulse table of --list-impulses. */
void cmd_list_impulses(FILE *out);

#endif
