/* A fix's states and its recheck's outcomes: their names as stored, and back. */
#include "fix.h"

#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const state_names[] = {
#define FIX_STATE_NAME(id, name) name,
	FIX_STATES(FIX_STATE_NAME)
#undef FIX_STATE_NAME
};

static const char *const recheck_names[] = {
#define FIX_RECHECK_NAME(id, name) name,
	FIX_RECHECKS(FIX_RECHECK_NAME)
#undef FIX_RECHECK_NAME
};

static int name_index(const char *const *names, size_t count, const char *name)
{
	size_t i;

	for (i = 0; name && i < count; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return 0;
}

const char *fix_state_name(enum fix_state state)
{
	return state_names[state];
}

const char *fix_recheck_stored(enum fix_recheck recheck)
{
	return recheck_names[recheck];
}

const char *fix_recheck_name(enum fix_recheck recheck)
{
	return recheck_names[recheck] ? recheck_names[recheck] :
		recheck == RECHECK_RUNNING ? "running" : "none";
}

enum fix_state fix_state_parse(const char *name)
{
	return (enum fix_state)name_index(state_names, COUNT(state_names), name);
}

enum fix_recheck fix_recheck_parse(const char *name)
{
	return (enum fix_recheck)name_index(recheck_names, COUNT(recheck_names), name);
}
