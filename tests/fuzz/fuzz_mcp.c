/*
 * Fuzz the MCP server's input: bytes cut into lines by the bounded reader
 * (in pieces of any size), each line parsed and decoded as a JSON-RPC
 * message or each item of a batch, and the id read from a line as it goes
 * by (what answers a line over the limit). Besides not crashing: a line
 * handed on is never over the limit and holds no line end; the same bytes
 * give the same lines, and the same ids, whether they come whole or a byte
 * at a time; the id read from a line that is a request is its id, and
 * from any start of it that id or none.
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

/* The id a scan reads from these bytes, fed whole or a byte at a time (the same), and whether it saw a response. */
static json_t *scan_id(const char *line, size_t len, bool *response)
{
	struct mcp_idscan whole, bytes;
	json_t *id;
	size_t i;

	mcp_idscan_init(&whole);
	mcp_idscan_init(&bytes);
	mcp_idscan_feed(&whole, line, len);
	for (i = 0; i < len; i++)
		mcp_idscan_feed(&bytes, line + i, 1);
	if (whole.response != bytes.response || !whole.id != !bytes.id || (whole.id && !json_equal(whole.id, bytes.id)))
		abort();
	if (whole.id && !json_is_string(whole.id) && !json_is_integer(whole.id))
		abort();
	id = json_incref(whole.id);
	*response = whole.response;
	mcp_idscan_release(&whole);
	mcp_idscan_release(&bytes);
	return id;
}

/*
 * The id read from a line as it goes by: a request's own; from any start
 * of a line, that id or none (the scan never guesses).
 */
static void id_check(const char *line, size_t len, json_t *json, const struct mcp_message *m)
{
	bool response, start_response;
	json_t *whole = scan_id(line, len, &response), *start = scan_id(line, len / 2, &start_response);

	if (m && m->kind == MCP_REQUEST && (!whole || !json_equal(whole, m->id)))
		abort();
	if (m && m->kind == MCP_REQUEST && response != (json_object_get(json, "result") || json_object_get(json, "error")))
		abort();
	if (start && (!whole || !json_equal(whole, start)))
		abort();
	json_decref(whole);
	json_decref(start);
}

static void on_line(void *ctx, const char *line, size_t len, const struct mcp_idscan *dropped)
{
	struct seen *seen = ctx;
	struct mcp_message m;
	json_t *json;
	size_t i;

	if (dropped) {
		char *id = dropped->id ? json_dumps(dropped->id, JSON_ENCODE_ANY) : NULL;

		seen->too_long++;
		for (i = 0; id && id[i]; i++)
			seen->hash = seen->hash * 31 + (unsigned char)id[i];
		seen->hash = seen->hash * 31 + dropped->response;
		free(id);
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
		id_check(line, len, json, NULL);
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
	struct mcp_reader whole = MCP_READER_INIT, bytes = MCP_READER_INIT;
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
