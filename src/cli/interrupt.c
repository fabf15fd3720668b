/* interrupt.c - SIGINT and SIGTERM as a flag for the predictor (cli.h):
 * the signals are blocked in every thread and one thread waits for them,
 * so no handler runs asynchronously and no global state is needed. */
#include "cli.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

struct cli_interrupt {
    pthread_t thread;
    sigset_t set, old;
    atomic_bool *flag;
};

static void *wait_signal(void *arg)
{
    cli_interrupt *in = arg;
    for (;;) {
        int sig = 0;
        if (sigwait(&in->set, &sig) != 0 || sig == SIGUSR1)
            return NULL;          /* cli_interrupt_stop */
        atomic_store(in->flag, true);
    }
}

cli_interrupt *cli_interrupt_start(atomic_bool *flag)
{
    cli_interrupt *in = calloc(1, sizeof *in);
    if (!in)
        return NULL;
    in->flag = flag;
    sigemptyset(&in->set);
    sigaddset(&in->set, SIGINT);
    sigaddset(&in->set, SIGTERM);
    sigaddset(&in->set, SIGUSR1);
    if (pthread_sigmask(SIG_BLOCK, &in->set, &in->old) != 0) {
        free(in);
        return NULL;
    }
    if (pthread_create(&in->thread, NULL, wait_signal, in) != 0) {
        pthread_sigmask(SIG_SETMASK, &in->old, NULL);
        free(in);
        return NULL;
    }
    return in;
}

void cli_interrupt_stop(cli_interrupt *in)
{
    if (!in)
        return;
    pthread_kill(in->thread, SIGUSR1);
    pthread_join(in->thread, NULL);
    pthread_sigmask(SIG_SETMASK, &in->old, NULL);
    free(in);
}
