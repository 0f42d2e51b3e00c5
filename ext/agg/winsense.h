/*
** Whether an aggregate context may serve a window: see winsense.c.
*/
#ifndef GPUAGG_WINSENSE_H
#define GPUAGG_WINSENSE_H

#include "gpuagg.h"

/* 0 where no statement now running on ctx's connection calls an aggregate
** as a window function (none can call xValue or xInverse on it), else 1
** (one does, or that cannot be known). */
int ga_window_maybe(sqlite3_context *ctx);

#endif /* GPUAGG_WINSENSE_H */
