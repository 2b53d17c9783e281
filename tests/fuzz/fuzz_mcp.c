/*
 * Fuzz the MCP server's input: bytes cut into lines by the bounded reader
 * (in pieces of any size), each line parsed and decoded as a JSON-RPC
 * message or each item of a batch, and the id read from the start of a
 * line (what answers a line over the limit). Besides not crashing: a line
 * handed on is never over the limit and holds no line end; the same bytes
 * give the same lines whether they come whole or a byte at a time; the id
 * read from a line that is a request is its id, and from any start of it
 * that id or none.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_rpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	unsigned long hash;
	size_t lines, too_long;
};

/*
 * The id read from the line's start: the message's own, or none; from the
 * whole line of a request (with no "result" or "error" member), its own.
 */
static void id_check(const char *line, size_t len, json_t *json, const struct mcp_message *m)
{
	json_t *whole = mcp_line_id(line, len), *start = mcp_line_id(line, len / 2);

	if (m && m->kind == MCP_REQUEST && !json_object_get(json, "result") && !json_object_get(json, "error") &&
	    (!whole || !json_equal(whole, m->id)))
		abort();
	if (whole && start && !json_equal(whole, start))
		abort();
	if ((whole && !json_is_string(whole) && !json_is_integer(whole)) ||
	    (start && !json_is_string(start) && !json_is_integer(start)))
		abort();
	json_decref(whole);
	json_decref(start);
}

static void on_line(void *ctx, const char *line, size_t len, bool too_long)
{
	struct seen *seen = ctx;
	struct mcp_message m;
	json_t *json;
	size_t i;

	if (too_long) {
		if (len != MCP_LINE_MAX || memchr(line, '\n', len))
			abort();
		for (i = 0; i < len; i++)
			seen->hash = seen->hash * 31 + (unsigned char)line[i];
		seen->too_long++;
		id_check(line, len, NULL, NULL);
		return;
	}
	if (len > MCP_LINE_MAX || memchr(line, '\n', len))
		abort();
	seen->lines++;
	for (i = 0; i < len; i++)
		seen->hash = seen->hash * 31 + (unsigned char)line[i];
	if (!(json = mcp_line_parse(line, len))) {
		id_check(line, len, NULL, NULL);
		return;
	}
	if (json_is_array(json)) {
		for (i = 0; i < json_array_size(json); i++)
			mcp_message_decode(&m, json_array_get(json, i));
	} else {
		mcp_message_decode(&m, json);
		if (m.kind == MCP_REQUEST && (!m.method || !m.id))
			abort();
		if (m.kind == MCP_INVALID && !m.invalid)
			abort();
		id_check(line, len, json, &m);
	}
	json_decref(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_reader whole = { BUF_INIT, false }, bytes = { BUF_INIT, false };
	struct seen a = { 0 }, b = { 0 };
	size_t i;

	if (mcp_reader_feed(&whole, (const char *)data, size, on_line, &a) < 0)
		abort();
	for (i = 0; i < size; i++)
		if (mcp_reader_feed(&bytes, (const char *)data + i, 1, on_line, &b) < 0)
			abort();
	if (a.hash != b.hash || a.lines != b.lines || a.too_long != b.too_long)
		abort();
	mcp_reader_release(&whole);
	mcp_reader_release(&bytes);
	return 0;
}
