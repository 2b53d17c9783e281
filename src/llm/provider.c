/* What the provider backends share (provider.h). */
#include "provider.h"
#include "status.h"

bool provider_set(json_t *body, const char *key, json_t *value)
{
	return value && json_object_set_new(body, key, value) == 0;
}

int provider_user_text(struct buf *out, const struct question *q)
{
	if (q->shared && buf_printf(out, "%s\n\n", q->shared) < 0)
		return RL_ENOMEM;
	return buf_puts(out, q->tail);
}
