#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_message[1024];
static _Thread_local int last_status;
/* The redaction (secret.c registers it with its first secret); a plain copy until then. */
static error_scrub_fn *scrub;

void error_scrub_set(error_scrub_fn *fn)
{
	scrub = fn;
}

static void message_copy(const char *s, size_t len)
{
	if (scrub)
		scrub(last_message, sizeof(last_message), s, len);
	else
		snprintf(last_message, sizeof(last_message), "%.*s", (int)len, s);
}

const char *status_text(int status)
{
	switch (status) {
#define STATUS_CASE(name, value, text) case name: return text;
	STATUS_LIST(STATUS_CASE)
#undef STATUS_CASE
	}
	return "unknown status";
}

/*
 * Every message is redacted (secret.h): a server's words that echo the API
 * key end up here. A message too long for the buffer is redacted whole
 * before it is cut, so that the cut cannot leave half a key.
 */
int error_set(int status, const char *fmt, ...)
{
	char copy[sizeof(last_message)], *full;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(copy, sizeof(copy), fmt, ap);
	va_end(ap);
	last_status = status;
	if (n < 0) {
		snprintf(last_message, sizeof(last_message), "%s", status_text(status));
	} else if ((size_t)n < sizeof(copy)) {
		message_copy(copy, (size_t)n);
	} else if ((full = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(full, (size_t)n + 1, fmt, ap);
		va_end(ap);
		message_copy(full, (size_t)n);
		free(full);
	} else {
		snprintf(last_message, sizeof(last_message), "%s (and out of memory for its message)",
			 status_text(status));
	}
	return status;
}

int error_nomem(void)
{
	return error_set(RL_ENOMEM, "out of memory");
}

const char *error_message(void)
{
	if (!last_message[0])
		return status_text(last_status);
	return last_message;
}

int error_status(void)
{
	return last_status;
}

void error_clear(void)
{
	last_message[0] = '\0';
	last_status = RL_OK;
}
