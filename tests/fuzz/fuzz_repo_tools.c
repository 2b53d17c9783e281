/*
 * libFuzzer target: what a model can ask the repository's tools
 * (repo_tools.h), before anything is looked up. The bytes are a path
 * cleaned as read_file cleans it: a path accepted is the index's spelling
 * (relative, no empty, "." or ".." component, nothing under .git in any
 * case, no control character), safe by repo_path_safe, and cleaning it
 * again changes nothing. The bytes are also a call's arguments (JSON) for
 * each tool: read or refused with a message, and what is read holds the
 * tool's rules (a path given, line numbers from 1 in order, a pattern not
 * empty, a glob well formed, a symbol of one word).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "glob.h"
#include "repo_content.h"
#include "repo_tools.h"
#include "status.h"
#include "words.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_clean(const char *p, size_t len)
{
	const char *c = p, *e = p + len;
	size_t i;

	if (len > REPO_TOOLS_PATH_MAX || (len && (p[0] == '/' || p[len - 1] == '/')))
		abort();
	for (i = 0; i < len; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			abort();
	while (len && c < e) {
		const char *slash = memchr(c, '/', (size_t)(e - c));
		size_t n = slash ? (size_t)(slash - c) : (size_t)(e - c);

		if (!n || (n == 1 && c[0] == '.') || (n == 2 && !strncmp(c, "..", 2)) ||
		    (n == 4 && !strncasecmp(c, ".git", 4)))
			abort();
		c += n + 1;
	}
	if (len && !repo_path_safe(p))
		abort();
}

static void fuzz_path(const uint8_t *data, size_t size)
{
	struct buf out = BUF_INIT, again = BUF_INIT;

	if (repo_tool_path_clean(&out, (const char *)data, size) == 0) {
		if (!out.ptr || strlen(out.ptr) != out.len)
			abort();
		check_clean(out.ptr, out.len);
		if (repo_tool_path_clean(&again, out.ptr, out.len) != 0 || strcmp(again.ptr, out.ptr))
			abort();
	} else if (error_status() != RL_EUSAGE && error_status() != RL_ENOMEM) {
		abort();
	}
	error_clear();
	buf_release(&out);
	buf_release(&again);
}

static bool one_word(const char *s)
{
	const char *p = s, *e = s + strlen(s), *w;
	size_t n = words_next(&p, e, &w);

	return n && w == s && n == (size_t)(e - s);
}

static void check_args(const struct repo_tool_args *a)
{
	switch (a->tool) {
	case REPO_TOOL_READ_FILE:
		if (!a->path || !*a->path || a->start < 0 || a->end < 0 ||
		    (a->end && a->end < (a->start ? a->start : 1)))
			abort();
		break;
	case REPO_TOOL_SEARCH:
		if (!a->pattern || !*a->pattern || strlen(a->pattern) > REPO_TOOLS_PATTERN_MAX ||
		    (a->glob && (!*a->glob || glob_check(a->glob) != 0)))
			abort();
		break;
	case REPO_TOOL_REFERENCES:
		if (!a->symbol || !one_word(a->symbol))
			abort();
		break;
	}
}

static void fuzz_args(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "read_file", "search", "references", "write_file" };
	json_t *args = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	struct repo_tool_args a;
	size_t i;
	int error;

	if (!args)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		error = repo_tool_args_read(&a, names[i], args);
		if (error == 0)
			check_args(&a);
		else if (!(error == RL_EUSAGE || (i == 3 && error == RL_ENOTFOUND)) || !*error_message())
			abort();
		if (i == 3 && error != RL_ENOTFOUND)
			abort();
		error_clear();
	}
	json_decref(args);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_path(data, size);
	fuzz_args(data, size);
	return 0;
}
