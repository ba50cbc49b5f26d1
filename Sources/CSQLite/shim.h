#ifndef REQD_CSQLITE_SHIM_H
#define REQD_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
