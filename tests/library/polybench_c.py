"""PolyBench/C 4.2.1 kernel bodies (scop regions) of the kernels that are not uniform as
written (tcpa class D): the C front end must refuse each, naming the access and the reason.
``NOT_BUILT`` names why the remaining PolyBench kernels have no built-in PRA (for durbin,
gramschmidt and nussinov the argument is computed by test_no_uniform_schedule.py)."""

from __future__ import annotations

CLASS_D = {
    "lu": """
for (i = 0; i < _PB_N; i++) {
  for (j = 0; j < i; j++) {
    for (k = 0; k < j; k++)
      A[i][j] -= A[i][k] * A[k][j];
    A[i][j] /= A[j][j];
  }
  for (j = i; j < _PB_N; j++)
    for (k = 0; k < i; k++)
      A[i][j] -= A[i][k] * A[k][j];
}
""",
    "cholesky": """
for (i = 0; i < _PB_N; i++) {
  for (j = 0; j < i; j++) {
    for (k = 0; k < j; k++)
      A[i][j] -= A[i][k] * A[j][k];
    A[i][j] /= A[j][j];
  }
  for (k = 0; k < i; k++)
    A[i][i] -= A[i][k] * A[i][k];
  A[i][i] = SQRT_FUN(A[i][i]);
}
""",
    "floyd-warshall": """
for (k = 0; k < _PB_N; k++)
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_N; j++)
      path[i][j] = path[i][j] < path[i][k] + path[k][j] ?
                   path[i][j] : path[i][k] + path[k][j];
""",
    "nussinov": """
for (i = _PB_N-1; i >= 0; i--) {
  for (j = i+1; j < _PB_N; j++) {
    if (j-1 >= 0)
      table[i][j] = max_score(table[i][j], table[i][j-1]);
    if (i+1 < _PB_N)
      table[i][j] = max_score(table[i][j], table[i+1][j]);
    if (j-1 >= 0 && i+1 < _PB_N) {
      if (i < j-1)
        table[i][j] = max_score(table[i][j], table[i+1][j-1] + match(seq[i], seq[j]));
      else
        table[i][j] = max_score(table[i][j], table[i+1][j-1]);
    }
    for (k = i+1; k < j; k++)
      table[i][j] = max_score(table[i][j], table[i][k] + table[k+1][j]);
  }
}
""",
    "durbin": """
y[0] = -r[0];
beta = SCALAR_VAL(1.0);
alpha = -r[0];
for (k = 1; k < _PB_N; k++) {
  beta = (1 - alpha*alpha) * beta;
  sum = SCALAR_VAL(0.0);
  for (i = 0; i < k; i++)
    sum += r[k-i-1] * y[i];
  alpha = - (r[k] + sum) / beta;
  for (i = 0; i < k; i++)
    z[i] = y[i] + alpha * y[k-i-1];
  for (i = 0; i < k; i++)
    y[i] = z[i];
  y[k] = alpha;
}
""",
    "gramschmidt": """
for (k = 0; k < _PB_N; k++) {
  nrm = SCALAR_VAL(0.0);
  for (i = 0; i < _PB_M; i++)
    nrm += A[i][k] * A[i][k];
  R[k][k] = SQRT_FUN(nrm);
  for (i = 0; i < _PB_M; i++)
    Q[i][k] = A[i][k] / R[k][k];
  for (j = k + 1; j < _PB_N; j++) {
    R[k][j] = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_M; i++)
      R[k][j] += Q[i][k] * A[i][j];
    for (i = 0; i < _PB_M; i++)
      A[i][j] = A[i][j] - Q[i][k] * R[k][j];
  }
}
""",
    "ludcmp": """
for (i = 0; i < _PB_N; i++) {
  for (j = 0; j < i; j++) {
    w = A[i][j];
    for (k = 0; k < j; k++)
      w -= A[i][k] * A[k][j];
    A[i][j] = w / A[j][j];
  }
  for (j = i; j < _PB_N; j++) {
    w = A[i][j];
    for (k = 0; k < i; k++)
      w -= A[i][k] * A[k][j];
    A[i][j] = w;
  }
}
for (i = 0; i < _PB_N; i++) {
  w = b[i];
  for (j = 0; j < i; j++)
    w -= A[i][j] * y[j];
  y[i] = w;
}
for (i = _PB_N-1; i >= 0; i--) {
  w = y[i];
  for (j = i+1; j < _PB_N; j++)
    w -= A[i][j] * x[j];
  x[i] = w / A[i][i];
}
""",
}

NOT_BUILT = {
    "durbin": "no uniform localisation in its (k, i) space: step k's z[i] reads y[k-i-1], "
              "which step k-1 finished at i' = k-i-1, a displacement (1, 2i-k+1) that takes "
              "every value from -(k-1) to k-1; with dependence vectors of bounded length a "
              "linear schedule must give one step at least (N-2)/length cycles, so none is "
              "independent of N (the smallest, computed from the traced dataflow: 2, 4, 6, 8 at "
              "N = 4, 6, 8, 10); as phases it would be 3N of them (a kernel's phase list is fixed)",
    "gramschmidt": "no uniform localisation in its (k, i) space: the norm of column k is a sum "
                   "along i whose result every row needs before step k+1's norm starts, at the "
                   "end of the column where step k's sum began: the path from (k, M-1) to "
                   "(k+1, 0) (from (k, 0) to (k+1, M-1) with the sum run the other way) crosses "
                   "the column against the sum, so the schedule grows with M (the smallest, "
                   "computed: 6, 10 at M = 4, 6); as phases it would be 2N of them",
    "nussinov": "no uniform localisation in its (i, j, k) space: table[i][j], finished at one "
                "end of its split range, is read at the other (as row operand at split k = j, "
                "as column operand at split k = i-1): from (i, j, j-1) to (i-2, j, i-1), a "
                "displacement that grows with j - i (its mirror with the max run down k), so "
                "the schedule grows with N (the smallest, computed: 4, 6, 10 at N = 5, 6, 8); "
                "the two-speed arrays of Guibas, Kung and Thompson use another index space, "
                "not derived here",
    "correlation": "needs a data-dependent select: its stddev phase clamps "
                   "stddev[j] <= eps ? 1.0 : stddev[j], which no PRA operation (+ - * / sqrt "
                   "max min) expresses exactly; its other phases are those of covariance",
    "adi": "not built in: each time step runs tridiagonal solves as a forward recurrence and "
           "then a backward one over the same index; in one nest no lexicographic order "
           "respects both (the backward sweep needs the forward one finished), and as phases "
           "they would repeat TSTEPS times (a kernel's phase list is fixed); its coefficients "
           "depend on N and TSTEPS (expressions of the parameters in a PRA computation)",
}
