/*
** The backend interface: the one door to a device. What the chunk pipeline
** asks of whatever reduces its chunks, what the column cache and the
** table-valued functions ask of columns kept on a device, and what the
** process knows of its devices. Two implementations give the same answers,
** bit for bit (every sum is exact and rounded once, on the host): cpu.c and
** cuda.c (with cuda_group.c, cuda_resident.c, cuda_select.c). Nothing
** outside ext/backend/ knows whether CUDA was built: it asks
** ga_device_backend(), and an operation a backend lacks (NULL) means "read
** the host copy instead". A device failure goes through one policy,
** ga_device_failed (conn.c).
**
**   1. A slot is one chunk buffer and what a backend needs to reduce it.
**      Slots live in a per-connection pool (conn.c) and are reused across
**      queries and groups; only xOpen and xClose allocate or free.
**   2. A job says what to reduce the chunk to. GA_OP_SUM: buf holds ni int64
**      values, then doubles (sum_acc.h). GA_OP_MIN/MAX: buf holds values in
**      scan order, each an int64 or a double as the type bitmap after the
**      cap values says (ext_acc.h). GA_OP_HIST: doubles, counted into the
**      job's histogram (hist_acc.h). GA_OP_KEEP: doubles, kept in the job's
**      histogram until its range is known (ga_hist). GA_OP_GROUP: rows (key,
**      value, meta; group_acc.h) at GA_GROUP_KEYS/VALS/META, folded into the
**      job's grouping (ga_group). GA_OP_STATS: nSeg columns' numbers, each
**      in its segment of segCap values with its own type bitmap
**      (GA_STATS_VALS/BITS), reduced to one ga_stat each (slot->stat).
**   3. xStart hands a filled chunk to the backend and may return before the
**      work is done; xWait returns when the slot's result (res, ext or
**      stat) holds it. Between the two, nothing may touch slot->buf.
**   4. Errors return non-zero with a message in zErr (GA_ERRLEN bytes). After
**      any error the chunk is still intact in slot->buf, so the caller can
**      reduce it on the CPU instead (ga_cpu_run).
**   5. Adding an operation: a member here with its contract, the CPU's
**      implementation in cpu.c (or NULL where the host copy serves), the
**      CUDA one in a cuda*.c file, and its caller applying
**      ga_device_failed to any error.
*/
#ifndef GPUAGG_BACKEND_H
#define GPUAGG_BACKEND_H

#ifdef HAVE_CONFIG_H
# include "config.h"
#endif
#include <stdint.h>
#include "sum_acc.h"
#include "ext_acc.h"
#include "hist_acc.h"
#include "group_acc.h"
#include "sq_acc.h"

#define GA_ERRLEN 256
#define GA_COLS_MAX 100           /* columns one scan reads (a function's argument limit) */
#define GA_DEV_MAX 8              /* devices a process uses, at most (the first visible ones) */

/* One device's share of a connection's counters (gpuagg_info's "devices"). */
typedef struct ga_devstat {
  int64_t nChunk;           /* chunks, and reductions of kept columns, it ran */
  int64_t nBytes;           /* bytes copied to it */
  double kernelMs;          /* its kernel time, ms */
} ga_devstat;

/* Counters of one connection, reported by gpuagg_info(). */
typedef struct ga_stats {
  int64_t nDevChunk;        /* chunks reduced on the device */
  int64_t nCpuChunk;        /* chunks reduced on the CPU */
  int64_t nBytes;           /* bytes copied host to device */
  double kernelMs;          /* device time of the reduction kernels, ms */
  double waitMs;            /* time queries spent waiting for chunk results, ms */
  int64_t nFallback;        /* chunks redone on the CPU after a CUDA error */
  int64_t nRescan;          /* histograms and groupings that scanned again */
  int64_t nKeyCoded;        /* gpu_query's groupings by a number key a device folded by
                            ** the key's code, not a hash table (cuda_resident.c) */
  int64_t nPageScan;        /* table scans read from the pages */
  int64_t nStmtScan;        /* table scans run as statements */
  int64_t nPageMapped;      /* leaf pages the page source read where SQLite maps the file */
  int64_t nPageCopied;      /* leaf pages it copied (read through the VFS) */
  int64_t nPageRead;        /* leaf pages its workers read on handles of their own */
  double pageWaitMs;        /* time the connection's thread waited for decoded pages, ms */
  double pageSinkMs;        /* time it spent handing rows to the functions, ms */
  char zLastErr[GA_ERRLEN]; /* the last CUDA error, "" if none */
  ga_devstat dev[GA_DEV_MAX]; /* the device work above, by device */
} ga_stats;

typedef struct ga_backend ga_backend;
typedef struct ga_slot ga_slot;

/* What a chunk is reduced to. */
enum ga_op { GA_OP_SUM, GA_OP_MIN, GA_OP_MAX, GA_OP_HIST, GA_OP_KEEP, GA_OP_GROUP, GA_OP_STATS };

/* Numbers kept in host memory for a histogram whose range is not known yet. */
typedef struct ga_kept {
  struct ga_kept *next;     /* kept before these */
  int64_t n;                /* values at v */
  int64_t cap;              /* room at v */
  double v[];               /* the values */
} ga_kept;

/*
** A histogram being counted: one per query, fed by every chunk. The CPU
** adds into counts directly; a device keeps its own counts (dev) and adds
** them in at xHistDone. Counting commutes, so the mix is exact.
**
** Without a given range the column is scanned once and its numbers kept
** (GA_OP_KEEP) while the range is found: by the CPU in host memory (host),
** by a device in its own memory (dev), together at most `budget` bytes.
** Once the range is known they are counted (ga_cpu_kept, xHistDone). If
** the budget or the memory runs out, everything kept is freed and `over`
** set: the caller counts with a second scan.
*/
typedef struct ga_hist {
  ga_hparams h;             /* the bins (when keeping: set once the scan is over) */
  uint64_t *counts;         /* h.bins counts on the host */
  void *dev;                /* the backend's own counts and kept chunks, or NULL */
  ga_kept *host;            /* numbers kept in host memory, newest first */
  int64_t budget;           /* bytes that may be kept */
  int64_t nKept;            /* bytes kept, host and device */
  int over;                 /* keeping gave up: nothing is kept */
  int lost;                 /* a device failed on it: what the device counted
                            ** or kept cannot be trusted (count again) */
} ga_hist;

/*
** A grouping (gpu_group_by), fed by every chunk of one scan. The CPU folds
** into its own table (cpu), a device into its own (dev); a scan uses one of
** them from its first chunk to its end (ga_pipe_close sends a tail where
** the chunks went). Reals that do not fit the window (group_acc.h, 3) are
** summed here, in exc. xGroupDone gathers the groups into res.
*/
typedef struct ga_group {
  int jb;                   /* the window's first word; -1 until a real came */
  int jbSure;               /* set by the caller: jb (-1: no reals) holds every real
                            ** the rows will give (gpu_query: the same program over
                            ** the same columns gave them on a device before), so
                            ** that a backend need not look for the window first */
  void *cpu;                /* the CPU's table (group.c), or NULL */
  void *dev;                /* the device's state, or NULL */
  struct ga_kmap *excMap;   /* group -> index in exc */
  ga_sum *exc;              /* reals summed here, by group */
  int64_t nExc;             /* groups in exc */
  int64_t nRow;             /* rows folded (the window's carries need a pass each 2^30) */
  int lost;                 /* a device failed on it, or chunks went to two
                            ** tables: fold again */
  int oom;                  /* a fold ran out of memory */
  ga_ghaves have;           /* set by the caller: a group that fails these may be left
                            ** out of res (group_acc.h, 6; n 0: none is) */
  int anyOrder;             /* set by the caller: res may come in any order (the groups'
                            ** order decides nothing: IN's set), not sorted */
  const ga_gcodes *codes;   /* set by the caller: xGroupDone(use) counts the groups by
                            ** code into codes->aCount (group_acc.h, 7) and gathers none
                            ** (res empty) */
  int64_t nAll;             /* after xGroupDone(use): the groups folded, before have drops
                            ** any (the device's one table; 0: not counted) */
  int64_t nCode, keyLo;     /* after a device's query (g[0]): the codes of the number key
                            ** it folded by code and its least key (cuda_resident.c; the
                            ** next run of the program may say them: qprog.h); 0: none */
  ga_grow *res;             /* after xGroupDone(use): every group (but those have drops),
                            ** the numeric ones first, ascending by ga_grow_order (ties
                            ** unordered), but where anyOrder is set */
  int64_t nRes;             /* groups in res */
} ga_group;

/* A grouping chunk of cap values holds GA_GROUP_ROWS(cap) rows: keys, then
** values, then meta bytes. */
#define GA_GROUP_ROWS(cap) ((((int64_t)(cap)*8)/17) & ~(int64_t)15)
#define GA_GROUP_KEYS(buf, cap) ((uint64_t*)(buf))
#define GA_GROUP_VALS(buf, cap) ((uint64_t*)(buf) + GA_GROUP_ROWS(cap))
#define GA_GROUP_META(buf, cap) ((unsigned char*)((uint64_t*)(buf) + 2*GA_GROUP_ROWS(cap)))

/* A statistics chunk of cap values for nSeg columns: each column's segment
** holds GA_STATS_CAP(cap, nSeg) values (a multiple of 64; 0: too many
** columns for the chunk), its bitmap as many bits. */
#define GA_STATS_CAP(cap, nSeg) (((int64_t)(cap)/(nSeg)) & ~(int64_t)63)
#define GA_STATS_VALS(buf, segCap, c) ((int64_t*)(buf) + (int64_t)(c)*(segCap))
#define GA_STATS_BITS(buf, cap, segCap, c) ((uint64_t*)((int64_t*)(buf) + (cap)) + (int64_t)(c)*((segCap)/64))

typedef struct ga_job {
  int op;                   /* enum ga_op */
  int64_t n;                /* values (GA_OP_GROUP: rows) in the chunk */
  int64_t ni;               /* GA_OP_SUM: how many of them lead as int64 */
  int64_t nReal;            /* GA_OP_MIN/MAX: how many type bits are set */
  int64_t base;             /* scan position of the chunk's first value */
  ga_hist *hist;            /* GA_OP_HIST, GA_OP_KEEP: where the chunk's doubles go */
  ga_group *group;          /* GA_OP_GROUP: where the chunk's rows go */
  int nSeg;                 /* GA_OP_STATS: columns */
  int64_t segCap;           /* ... values each segment holds */
  int32_t segN[GA_COLS_MAX];    /* ... values in each */
  int32_t segReal[GA_COLS_MAX]; /* ... how many of them are reals */
} ga_job;

/* Words of the type bitmap of a chunk of cap values. */
#define GA_BITMAP_WORDS(cap) (((int64_t)(cap) + 63) / 64)

struct ga_slot {
  const ga_backend *be;     /* backend that made this slot */
  int64_t *buf;             /* host chunk: cap values, then the type bitmap */
  int cap;                  /* values buf holds */
  ga_sum res;               /* result of the last GA_OP_SUM job */
  ga_ext ext;               /* result of the last GA_OP_MIN/MAX job */
  ga_stat *stat;            /* results of the last GA_OP_STATS job, by column */
  int nStat;                /* room in stat (malloc'd, freed with the slot) */
  void *aux;                /* the owning aggregate's per-value side data */
  int64_t nAux;             /* bytes allocated at aux */
  ga_stats *stats;          /* the owning connection's counters */
  int nDev;                 /* devices the owning connection may use (0: all) */
  void *priv;               /* the backend's own state */
  int bad;                  /* a CUDA error touched it: destroy, never reuse */
  ga_slot *next;            /* next idle slot of the pool */
};

/* A column kept where a backend computes on it (the column cache's device
** form: cuda_resident.c), and a connection's state for the work on such
** columns (streams, scratch, results), made at its first use. */
typedef struct ga_dcol ga_dcol;
typedef struct ga_dres ga_dres;
/* A kept column as gpu_query's programs (qprog.h) read it: the host copy
** (classes, values) and the device form (NULL: none). */
typedef struct ga_qcol {
  const unsigned char *type;
  const int64_t *v;
  ga_dcol *d;
} ga_qcol;
struct ga_qprog;
#define GA_DEV_NOMEM 2            /* xColMake: the device has no room (evict, retry) */
#define GA_DEV_SCAN  3            /* not served by the device (no failure): read the host copy */

struct sqlite3_str;

struct ga_backend {
  const char *zName;        /* "cpu" or "cuda" */
  /* Allocate slot->buf for slot->cap values and any backend state. */
  int (*xOpen)(ga_slot*, char *zErr);
  /* A slot leaves the pool for a new pipeline (may upgrade its buffer). */
  void (*xReady)(ga_slot*);
  /* Free everything xOpen and later calls allocated; waits for work first. */
  void (*xClose)(ga_slot*);
  /* Start the job on the slot's chunk. */
  int (*xStart)(ga_slot*, const ga_job*, char *zErr);
  /* Wait for the reduction started last; its result is then in the slot. */
  int (*xWait)(ga_slot*, char *zErr);
  /* True when a reduction costs no one-time setup (CUDA: a context exists). */
  int (*xWarm)(void);
  /* After the last chunk of a histogram landed. use: count what the
  ** backend kept (hist->h is final) and add its own counts into
  ** hist->counts. Then, on every path, free what it holds for hist. */
  int (*xHistDone)(ga_hist*, int use, char *zErr);
  /* After the last chunk of a grouping landed. use: gather every group into
  ** group->res. Then, on every path, free what the backend holds for it. */
  int (*xGroupDone)(ga_group*, int use, char *zErr);
  /* Order statistics: the keys at ranks rank[0..nRank) (ascending, repeats
  ** allowed) of keys[0..n) in ascending order, into out; the keys may be
  ** reordered. Counted in stats. */
  int (*xRanks)(uint64_t *keys, int64_t n, const int64_t *rank, int nRank, uint64_t *out, ga_stats*, char *zErr);

  /* ---- The process's devices; NULL in a backend without any (the CPU's). */
  /* Whether the backend can serve here (probed once per process, no context
  ** made); if not, why, in zWhy. */
  int (*xUsable)(char *zWhy);
  /* Its fields of gpuagg_info()'s JSON (",\"device\":..."). */
  void (*xDescribe)(struct sqlite3_str*);
  /* Whether device d is one a connection limited to nDev (0: all) uses now;
  ** device d's name. */
  int (*xAllowed)(int d, int nDev);
  const char *(*xDeviceName)(int d);
  /* Fault injection (tests): fail the Nth call of kind zKind from now (N
  ** 0: disarm) on device iDev (-1: any); the faults injected so far, -1
  ** for a bad kind or device. NULL unless built for it. */
  int (*xFault)(const char *zKind, int64_t n, int iDev);

  /* ---- Kept columns (the column cache's device form). NULL in a backend
  ** that keeps none: the caller then reads the host copy. Each returns 0,
  ** or non-zero with zErr set; the caller applies the failure policy
  ** (ga_device_failed). Reductions count their work per device in stats,
  ** and give what the chunk pipeline gives on the same rows. */
  /* n rows (classes, values as the cache holds them: a TEXT or BLOB value
  ** its place in the column's dictionary) across the devices of a
  ** connection limited to nDev, with the number sum() reads from each of
  ** the nDict dictionary entries (dictNum, and dictReal: a double's bits;
  ** NULL: not known); *pBytes the device memory it takes. GA_DEV_NOMEM: a
  ** device had no room. The connection's state (made here at first use)
  ** keeps what copies need again (pinned buffers). */
  int (*xColMake)(ga_dres**, const unsigned char *type, const int64_t *v, int64_t n, const int64_t *dictNum,
                  const unsigned char *dictReal, int64_t nDict, int nDev, ga_dcol **pp, int64_t *pBytes, char *zErr);
  void (*xColFree)(ga_dcol*);
  /* The device memory a column of n rows, nNum of them numbers, with nDict
  ** dictionary numbers, takes. */
  int64_t (*xColBytes)(int64_t n, int64_t nNum, int64_t nDict);
  /* ... and what d takes on device iDev. */
  int64_t (*xColBytesOn)(const ga_dcol *d, int iDev);
  /* The free memory of a connection's devices (limited to nDev), together;
  ** -1 if there is no context. */
  int64_t (*xFreeBytes)(int nDev);
  void (*xResFree)(ga_dres*);
  /* The memory that state's buffers for gpu_query's programs take (device,
  ** and pinned host: the programs' tables, grouping rows; they grow with
  ** the reads), and giving them back once its work ended (the next read
  ** makes them again). Its fixed part (made once a device) is not counted.
  ** NULL in the CPU's. */
  int64_t (*xResBytes)(const ga_dres*);
  void (*xResTrim)(ga_dres*);
  /* out[c]: the statistics of a[c]'s numbers (those with numbers only). */
  int (*xColStats)(ga_dres**, ga_stats*, ga_dcol *const *a, int n, ga_stat *out, char *zErr);
  /* The least and greatest of d's numbers (d has some). */
  int (*xColRange)(ga_dres**, ga_stats*, ga_dcol *d, ga_ext *mn, ga_ext *mx, char *zErr);
  /* Count d's numbers into hist->counts (hist->h set). */
  int (*xColHist)(ga_dres**, ga_stats*, ga_dcol *d, ga_hist *hist, char *zErr);
  /* Fold key column k and value column v into g (g->jb set; nGroup: the
  ** key column's groups if known, else 0); then xGroupDone. A TEXT or BLOB
  ** value: places 0, the number sum() reads from it (v's dictionary
  ** numbers; none: not a value), summed, no extreme; places 1, its place
  ** in v's dictionary as an integer value, every other row no value (the
  ** groups' extremes are then the least and greatest TEXT or BLOB).
  ** GA_DEV_SCAN: k and v are split across devices differently. */
  int (*xColGroup)(ga_dres**, ga_stats*, ga_dcol *k, ga_dcol *v, int64_t nGroup, int places, ga_group *g,
                   char *zErr);
  /* xRanks over the keys of d's numbers (ranks.h's ga_key). */
  int (*xColRanks)(ga_dres**, ga_stats*, ga_dcol *d, const int64_t *rank, int nRank, uint64_t *out, char *zErr);
  /* How many distinct values d's numbers have, as count(DISTINCT) counts
  ** them (1 and 1.0 one value, integers exact), into *pn; GA_DEV_SCAN where
  ** it does not serve (a column split across devices); SQLITE_NOMEM: the
  ** host's memory ran out. */
  int (*xColDistinct)(ga_dres**, ga_stats*, ga_dcol *d, int64_t *pn, char *zErr);

  /* ---- gpu_query's operators over kept columns (qprog.h). The CPU's reads
  ** the host copies and is the reference; a device's reads the device
  ** forms (every a[c].d set) and gives the same bits. */
  /* Run p over nRow rows of columns a[0..p->nCol) with the tables (nTab
  ** entries: classes tabC, values tabV), folding each row into every one of
  ** g[0..p->nFold) (fresh groupings, jb -1 unless jbSure); the caller then
  ** gathers them (xGroupDone). GA_DEV_SCAN: not served, no failure (a
  ** value's range the sums' window cannot hold, a column split across
  ** devices unlike the others); the caller runs the engine's own operators
  ** instead. */
  int (*xQuery)(ga_dres**, ga_stats*, const struct ga_qprog *p, const ga_qcol *a, int64_t nRow,
                const unsigned char *tabC, const int64_t *tabV, int64_t nTab, ga_group *const *g, char *zErr);
  /* Run p (an order: qprog.h, 5) over the same rows and give the rows at
  ** places off..off+n of the order its key makes among those the filter
  ** keeps (NULLs first where nullsFirst, else last; ties in scan order):
  ** their row numbers into aRow[0..*pnRow), in that order. GA_DEV_SCAN:
  ** not served (INTEGER and REAL keys both; columns split across devices). */
  int (*xOrder)(ga_dres**, ga_stats*, const struct ga_qprog *p, const ga_qcol *a, int64_t nRow,
                const unsigned char *tabC, const int64_t *tabV, int64_t nTab, int desc, int nullsFirst,
                int64_t off, int64_t n, int64_t *aRow, int64_t *pnRow, char *zErr);
  /* Make a context on the first device a connection limited to nDev uses
  ** (so that columns kept from now go there too); NULL in the CPU's. */
  int (*xWake)(int nDev, char *zErr);
};

/* The CPU's xQuery and xOrder (query_cpu.c). */
int ga_cpu_query(ga_dres**, ga_stats*, const struct ga_qprog *p, const ga_qcol *a, int64_t nRow,
                 const unsigned char *tabC, const int64_t *tabV, int64_t nTab, ga_group *const *g, char *zErr);
int ga_cpu_order(ga_dres**, ga_stats*, const struct ga_qprog *p, const ga_qcol *a, int64_t nRow,
                 const unsigned char *tabC, const int64_t *tabV, int64_t nTab, int desc, int nullsFirst,
                 int64_t off, int64_t n, int64_t *aRow, int64_t *pnRow, char *zErr);

extern const ga_backend ga_cpu_backend;

/* Memory for a chunk buffer of cap values and its bitmap (free() it). */
void *ga_host_alloc(int cap);

/* Do the job on the calling thread: the CPU backend, and every fallback. */
void ga_cpu_run(ga_slot*, const ga_job*);

/* The parts of it, on any buffer. */
void ga_cpu_sum(const int64_t *buf, int64_t n, int64_t ni, ga_sum *out);
void ga_cpu_ext(const int64_t *buf, const uint64_t *bits, int64_t n, int isMax, ga_ext *out);
void ga_cpu_hist(const double *v, int64_t n, ga_hist *hist);
void ga_cpu_stats(const int64_t *v, const uint64_t *bits, int64_t n, ga_stat *out);

/* Keep n numbers in hist's host memory, or give up keeping (ga_hist). */
void ga_cpu_keep(ga_hist*, const double *v, int64_t n);

/* use: count the numbers kept in host memory. Then free them. */
void ga_cpu_kept(ga_hist*, int use);

/* Groupings (group.c). Before a chunk of n rows goes anywhere: choose the
** window at the first reals, flag the reals it cannot hold GA_V_HOST and sum
** those in g->exc. Non-zero: out of memory. */
int ga_group_window(ga_group *g, const uint64_t *keys, const uint64_t *vals, unsigned char *meta, int64_t n);
/* The window (*pjb) for reals whose biased exponents, the finite non-zero
** ones, lie in [eMin, eMax]: 1 if it holds them all, 0 if ga_group_window
** would flag some. */
int ga_group_window_all(int eMin, int eMax, int *pjb);
/* Fold n rows, the first at scan position base, into the CPU's table.
** Non-zero: out of memory. */
int ga_cpu_group(ga_group *g, const uint64_t *keys, const uint64_t *vals, const unsigned char *meta,
                 int64_t n, int64_t base);
/* Add the n entries of another table (a device's; tag 0: unused) into the
** CPU's, accumulator by accumulator. Non-zero: out of memory. */
int ga_cpu_group_add(ga_group *g, const ga_gent *ent, const ga_gacc *acc, int64_t n);
/* The CPU's xGroupDone. */
int ga_cpu_group_done(ga_group *g, int use, char *zErr);
/* Free g's host state (exc, res). */
void ga_group_clear(ga_group *g);
/* A group's place in the order of keys: the numeric ones by their floor
** double (ties: big integers that share it), the others after them. */
uint64_t ga_grow_order(const ga_grow*);
/* Sign of a - b for two numeric groups' keys, exactly. */
int ga_grow_cmp_num(const ga_grow *a, const ga_grow *b);

/* The device backend this build has (CUDA), or NULL (built without). */
const ga_backend *ga_device_backend(void);

/* Whether the device backend can serve here; if not, why, in zWhy. */
int ga_device_usable(char *zWhy);
/* Whether the device backend can serve here, where that is known: 1 yes,
** 0 no, -1 not yet (the driver is being asked meanwhile: ask
** ga_device_usable when the answer is needed). */
int ga_device_probe_soon(void);
/* Columns are kept for the device before any context: the device made
** ready (its context) on a thread of its own, once a process, so that they
** can go there. 1 while that thread is at it (a read that would wait for
** it need not: ask again later), else 0 (it ended: the device is warm or
** off, or no thread could start). */
int ga_device_warm_soon(void);
/* Every connection has closed: what the device backend keeps for reuse
** (its freed blocks) is given back, and the probe's and warm-up's threads
** joined. */
void ga_device_idle(void);

#endif /* GPUAGG_BACKEND_H */
