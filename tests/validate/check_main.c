/* check_main.c - `isopredict check` alone, for the end-to-end tests and
 * the benchmark while the full binary depends on every other module. */
#include "cli.h"

int main(int argc, char **argv)
{
    argv[0] = "check";
    return cmd_check(argc, argv);
}
