#ifndef REVLINE_BACKEND_PG_LIB_H
#define REVLINE_BACKEND_PG_LIB_H

#include <libpq-fe.h>

/*
 * libpq, loaded the first time a team's PostgreSQL store is opened (dl.h:
 * it is not linked, so that the local store's users never pay for it).
 * Every call goes through the table, typed from <libpq-fe.h>:
 * libpq.exec() is PQexec(). pg_open calls pg_lib_load() before anything
 * else of libpq.
 */
#define PG_LIB_FUNCTIONS(X) \
	X(connectdbParams) X(connectionNeedsPassword) X(connectionUsedPassword) X(conninfoParse) \
	X(conninfoFree) X(finish) X(status) X(errorMessage) X(setNoticeProcessor) X(transactionStatus) \
	X(exec) X(clear) X(resultStatus) X(resultErrorField) X(cmdStatus) X(cmdTuples) \
	X(ntuples) X(nfields) X(fname) X(ftype) X(getvalue) X(getisnull) X(getlength) \
	X(unescapeBytea) X(freemem) \
	X(enterPipelineMode) X(exitPipelineMode) X(pipelineSync) X(getResult) \
	X(sendQuery) X(sendQueryParams) X(sendPrepare) X(sendQueryPrepared)

struct pg_lib {
#define PG_LIB_SLOT(fn) __typeof__(PQ##fn) *fn;
	PG_LIB_FUNCTIONS(PG_LIB_SLOT)
#undef PG_LIB_SLOT
};

extern struct pg_lib libpq;

/* Loads libpq once (dl_load): RL_ECONFIG saying what to install when it cannot be. */
int pg_lib_load(void);

#endif
