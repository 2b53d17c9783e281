#ifndef REVLINE_MCP_RPC_H
#define REVLINE_MCP_RPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "mcp_idscan.h"

/*
 * JSON-RPC 2.0 as MCP's stdio transport carries it: one message a line,
 * UTF-8, no line breaks inside a message. The reader cuts what arrives on
 * stdin into lines, each at most MCP_LINE_MAX bytes (a longer one is
 * dropped, its id read as it goes by, so that the error reaches the call
 * that waits); a line decodes into a request, a notification, a response,
 * a batch (an array) or a reason it is none.
 */
#define MCP_LINE_MAX (1 << 20)
#define MCP_LINE_MAX_TEXT "1 MiB (1048576 bytes)"

/* The error codes of JSON-RPC 2.0. */
enum {
	MCP_PARSE_ERROR = -32700,
	MCP_INVALID_REQUEST = -32600,
	MCP_METHOD_NOT_FOUND = -32601,
	MCP_INVALID_PARAMS = -32602,
	MCP_INTERNAL_ERROR = -32603,
};

struct mcp_reader {
	struct buf line;
	bool skipping;          /* inside a line over MCP_LINE_MAX: dropped up to its end */
	struct mcp_idscan dropped;      /* that line's id, read as it goes by */
};

#define MCP_READER_INIT { BUF_INIT, false, { 0 } }

/*
 * A whole line (no line end), or, once a line over the limit has ended,
 * dropped: what its id was (line is NULL then).
 */
typedef void mcp_line_fn(void *ctx, const char *line, size_t len, const struct mcp_idscan *dropped);

/* Take bytes read from the client; fn gets each line they complete. */
int mcp_reader_feed(struct mcp_reader *reader, const char *data, size_t len, mcp_line_fn *fn, void *ctx);
void mcp_reader_release(struct mcp_reader *reader);

enum mcp_kind { MCP_REQUEST, MCP_NOTIFICATION, MCP_RESPONSE, MCP_INVALID };

/* One message of a line (or of a batch); borrowed from the JSON it came in. */
struct mcp_message {
	enum mcp_kind kind;
	json_t *id;             /* a string or an integer; NULL for a notification */
	const char *method;
	json_t *params;         /* an object, or NULL when absent */
	const char *invalid;    /* MCP_INVALID: why */
};

/*
 * Decode one message. An invalid one keeps its id when it had a usable one
 * (so the error response can name it), else id is NULL.
 */
void mcp_message_decode(struct mcp_message *out, json_t *item);

/* A line's JSON (any value: 42 is an invalid request, not a parse error), or NULL (not JSON). */
json_t *mcp_line_parse(const char *line, size_t len);

/* The messages revline sends. */
json_t *mcp_response(json_t *id, json_t *result);
json_t *mcp_error(json_t *id, int code, const char *message);
json_t *mcp_notification(const char *method, json_t *params);
/* Write a message as one line (and steals it); -1 when the client is gone. */
int mcp_write(int fd, json_t *message);

#endif
