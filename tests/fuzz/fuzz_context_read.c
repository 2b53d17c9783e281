/*
 * Fuzz what revline says of a tool call a model made (check_context_read_text)
 * and whether a file concerns a finding (check_context_path_concerns): the
 * input is a tool name, a newline, then the arguments as the model gave them
 * (any bytes: JSON or not, cut anywhere). Besides not crashing: the text
 * starts with the tool's name, a file read is named in it, and that file
 * concerns a finding whose issue quotes it on its own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	struct rule_read read = { .turn = 1, .result_bytes = size };
	struct buf text = BUF_INIT, path = BUF_INIT, issue = BUF_INIT;
	struct finding f = { 0 };

	if (!nl || memchr(data, '\0', size))
		return 0;
	if (!(read.tool = strndup((const char *)data, (size_t)(nl - data))) ||
	    !(read.arguments = strndup((const char *)nl + 1, size - (size_t)(nl - data) - 1)))
		abort();
	if (size & 1)
		read.error = "no such file";
	if (check_context_read_text(&text, &path, &read) < 0 || !text.ptr ||
	    strncmp(text.ptr, read.tool, strlen(read.tool)))
		abort();
	if (path.len && !strstr(text.ptr, path.ptr))
		abort();
	/* Named on its own in a finding's words, a file concerns it; any words leave it standing. */
	f.file = "";
	f.evidence.where_checked = read.arguments;
	check_context_path_concerns(read.tool, &f);
	if (path.len) {
		if (buf_printf(&issue, "see %s here", path.ptr) < 0)
			abort();
		f.issue = issue.ptr;
		if (!strchr(path.ptr, ' ') && !check_context_path_concerns(path.ptr, &f))
			abort();
	}
	buf_release(&text);
	buf_release(&path);
	buf_release(&issue);
	free(read.tool);
	free(read.arguments);
	return 0;
}
