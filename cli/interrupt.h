#ifndef REVLINE_INTERRUPT_H
#define REVLINE_INTERRUPT_H

#include <stdbool.h>

/*
 * A long command cut short by a signal (SIGINT, SIGTERM, SIGHUP): the
 * first one is noted and the command cancels, keeping what arrived; the
 * handler goes with it, so a second one kills. The command then exits
 * 128 + the signal (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP).
 */
void interrupt_catch(bool on);
/* The signal that came, or 0. */
int interrupt_signal(void);
/* "interrupted (Ctrl-C)", "terminated (SIGTERM)", "hung up (SIGHUP)". */
const char *interrupt_name(void);

#endif
