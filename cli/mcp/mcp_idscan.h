#ifndef REVLINE_MCP_IDSCAN_H
#define REVLINE_MCP_IDSCAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The id of a message too long to keep (over MCP_LINE_MAX), read as its
 * bytes go by in pieces of any size, with a few bytes of state whatever its
 * length: the top-level "id" member of the object, wherever it is in the
 * line (the official TypeScript SDK writes it last), so that the error
 * reaches the call that waits for it. Values are skipped by counting
 * brackets, no recursion. A line that is no object, or that goes wrong
 * before its "id", has none.
 */
#define MCP_ID_MAX 1024         /* the longest id token read; a longer one is not kept */

struct mcp_idscan {
	int state;
	size_t depth;                   /* of brackets inside a member's value */
	bool in_string, escape;
	char token[MCP_ID_MAX];         /* the member name, or the id's value, as written */
	size_t token_len;
	bool token_long;
	bool id_next;                   /* the value being read is the id's */
	json_t *id;                     /* the first top-level "id": a string or an integer */
	bool response;                  /* a top-level "result" or "error": a response, never answered */
};

void mcp_idscan_init(struct mcp_idscan *scan);
void mcp_idscan_feed(struct mcp_idscan *scan, const char *data, size_t len);
void mcp_idscan_release(struct mcp_idscan *scan);

#endif
