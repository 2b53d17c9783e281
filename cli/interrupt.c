/* A command cut short by a signal: noted, said, and its exit status. */
#include "interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t interrupted;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_interrupt(int sig)
{
	if (!interrupted)
		interrupted = sig;
}

void interrupt_catch(bool on)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on ? on_interrupt : SIG_DFL;
	sa.sa_flags = on ? SA_RESETHAND : 0;
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, NULL);
}

int interrupt_signal(void)
{
	return interrupted;
}

const char *interrupt_name(void)
{
	return interrupted == SIGINT ? "interrupted (Ctrl-C)" : interrupted == SIGTERM ? "terminated (SIGTERM)" :
	       "hung up (SIGHUP)";
}
