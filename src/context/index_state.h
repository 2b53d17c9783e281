#ifndef REVLINE_INDEX_STATE_H
#define REVLINE_INDEX_STATE_H

/*
 * Inside the index (index.h): index.c drives it (the member, the phases,
 * listing and the store), index_tag.c tags the blobs the store does not
 * have, index_build.c makes the side's definitions and answers questions
 * about them.
 */
#include "arena.h"
#include "index.h"
#include "repo.h"
#include "store_context.h"
#include "tags.h"

#define NO_SLOT ((size_t)-1)

/* One distinct content of the side. */
struct blob_slot {
	char id[41];
	size_t file;            /* a file that has it, read when it must be tagged */
	enum index_file_state state;
	const char *why;        /* in the arena */
	const void *words;      /* in the arena */
	size_t words_len;
	uint64_t size;
	size_t ntags;           /* as the store says */
	size_t first, count;    /* its definitions in protos */
	bool known;             /* the store has it */
	bool stale;             /* the store's time for it is a day old or more: renewed */
	bool done;              /* its state is final */
};

enum phase { P_LIST, P_PROBE, P_LOOKUP, P_LOAD, P_TAG, P_BUILD, P_DONE };

/* A blob with ctags, waiting for its tags, and its content (for the end lines). */
struct pending {
	size_t slot;
	struct buf text;
};

struct index {
	struct index_options opts;
	struct target target;           /* a copy of the options' (its labels left out) */
	char *ctags_setting;
	enum phase phase;
	int status;
	char *message;
	struct buf note;
	bool complete;
	struct glob_list *ignore;       /* revline.ignore's patterns, compiled */
	struct tags_program program;
	bool have_ctags;
	struct child *probe;            /* ctags --version, while the files are listed */
	bool probed;
	char indexer[17];
	struct repo_files *listing;
	struct index_file *files;
	size_t nfiles;
	size_t *file_slot;              /* each file's slot, NO_SLOT when it has no blob id */
	struct blob_slot *slots;        /* by id */
	size_t nslots;
	size_t at;                      /* where a phase is in its slots */
	struct blob_slot *last_slot;    /* the one the store's last tag was of */
	struct tags_session *session;
	struct pending *pending;        /* in the order sent */
	size_t pending_first, npending, pending_alloc;
	size_t pending_bytes;
	struct store_context_blob *batch;
	struct tag_list *batch_tags;
	size_t nbatch, batch_alloc;
	size_t failed;                  /* blobs ctags failed on */
	struct def *protos;             /* each slot's definitions, no file yet */
	size_t nprotos, protos_alloc;
	struct def *defs;
	size_t ndefs;
	const struct def **by_name;
	struct arena arena;
	struct index_stats stats;
	struct poll_member member;
	struct poll_group *own_group;
	int64_t started_ms, phase_ms;
	struct buf scratch;
};

/* index.c */
struct blob_slot *index_slot_find(struct index *index, const char *id);
/* A note for the user (several are joined with "; "). */
void index_note_add(struct index *index, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The store failed: the index goes on without it, saying so. */
void index_store_lost(struct index *index);
const char *index_strdup(struct index *index, const char *s);

/* index_tag.c: a slice of tagging until until_us (clock_us); 1 when every blob is done. */
int index_tag_step(struct index *index, int64_t until_us);
/* Whether tagging waits for ctags alone (nothing to read or send meanwhile). */
bool index_tag_waiting(const struct index *index);
/* Let go of ctags and what waits for it (the blobs it had stay unknown). */
void index_tag_release(struct index *index);
/* A definition of the slot's blob, copied into the arena (no file yet). */
int index_proto_add(struct index *index, struct blob_slot *slot, const struct tag *tag);
/* The blobs finished since the last flush, to the store. */
int index_batch_flush(struct index *index);

/* index_build.c: the files' definitions, by file and by name. */
int index_build(struct index *index);
void index_built_release(struct index *index);

#endif
