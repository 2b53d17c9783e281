#include "status.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_message[1024];
static _Thread_local int last_status;

const char *status_text(int status)
{
	switch (status) {
#define STATUS_CASE(name, value, text) case name: return text;
	STATUS_LIST(STATUS_CASE)
#undef STATUS_CASE
	}
	return "unknown status";
}

int error_set(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_message, sizeof(last_message), fmt, ap);
	va_end(ap);
	last_status = status;
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
