/* Key bindings and key names, from the REQUEST_LIST table. */
#include "request.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define REQUEST_KEYS(id, group, help, ...) static const int keys_##id[] = { __VA_ARGS__ };
REQUEST_LIST(REQUEST_KEYS)
#undef REQUEST_KEYS

static const struct request_info requests[] = {
#define REQUEST_INFO(id, group, help, ...) \
	{ id, group, help, keys_##id, sizeof(keys_##id) / sizeof(keys_##id[0]) },
	REQUEST_LIST(REQUEST_INFO)
#undef REQUEST_INFO
};

static const struct {
	int key;
	const char *name;
} key_names[] = {
	{ KEY_UP, "Up" }, { KEY_DOWN, "Down" }, { KEY_LEFT, "Left" }, { KEY_RIGHT, "Right" },
	{ KEY_PPAGE, "PgUp" }, { KEY_NPAGE, "PgDn" }, { KEY_HOME, "Home" }, { KEY_END, "End" },
	{ KEY_ENTER, "KeyEnter" }, { '\n', "Enter" }, { '\r', "Return" }, { KEY_TAB, "Tab" },
	{ KEY_ESC, "Esc" }, { ' ', "Space" }, { KEY_BACKSPACE, "BS" }, { 127, "Del" },
	{ KEY_WHEEL_UP, "WheelUp" }, { KEY_WHEEL_DOWN, "WheelDown" }, { '<', "LT" },
	{ KEY_RESIZE, "Resize" }, { KEY_DC, "Delete" }, { KEY_IC, "Insert" },
	{ KEY_F(5), "F5" }, { KEY_FOCUS_IN, "FocusIn" },
};

#define NKEYNAMES (sizeof(key_names) / sizeof(key_names[0]))

enum request request_of_key(int key)
{
	size_t i, k;

	for (i = 0; i < sizeof(requests) / sizeof(requests[0]); i++)
		for (k = 0; k < requests[i].nkeys; k++)
			if (requests[i].keys[k] == key)
				return requests[i].request;
	return REQ_NONE;
}

const struct request_info *request_table(size_t *count)
{
	*count = sizeof(requests) / sizeof(requests[0]);
	return requests;
}

const char *key_name(int key)
{
	static char name[16];
	size_t i;

	for (i = 0; i < NKEYNAMES; i++)
		if (key_names[i].key == key && key != '<')
			return key_names[i].name;
	if (key >= 1 && key < 32) {
		snprintf(name, sizeof(name), "^%c", key + '@');
		return name;
	}
	if (key > 32 && key < 127) {
		snprintf(name, sizeof(name), "%c", key);
		return name;
	}
	snprintf(name, sizeof(name), "#%d", key);
	return name;
}

int key_from_name(const char *name, size_t len)
{
	size_t i;

	if (len == 3 && (name[0] == 'C' || name[0] == 'c') && name[1] == '-')
		return KEY_CTRL(name[2]);
	for (i = 0; i < NKEYNAMES; i++)
		if (strlen(key_names[i].name) == len && !strncasecmp(key_names[i].name, name, len))
			return key_names[i].key;
	if (len == 1)
		return (unsigned char)name[0];
	return -1;
}

void request_keys_text(struct buf *out, const struct request_info *info)
{
	size_t k;

	for (k = 0; k < info->nkeys; k++) {
		/* Enter and Return are one key to a user. */
		if (info->keys[k] == '\r' || info->keys[k] == KEY_ENTER)
			continue;
		if (out->len)
			buf_puts(out, ", ");
		buf_puts(out, key_name(info->keys[k]));
	}
}
