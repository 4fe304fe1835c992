// The list of pressure solvers, one line each: X(Type, "name", "Label"). The SolverKind
// enum, the parameter table's choices, the command line, the panel and the driver's
// dispatch are all generated from it, so adding a method means one line here plus its
// files (kernels/<name>.h, src/sim/<name>.h).
#pragma once

#define TP_SOLVERS(X)       \
  X(Wcsph, "wcsph", "WCSPH")   \
  X(Pcisph, "pcisph", "PCISPH") \
  X(Pbf, "pbf", "PBF")               \
  X(Dfsph, "dfsph", "DFSPH")
