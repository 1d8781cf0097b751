
void scaled(int N, double alpha, double A[N][N], double x[N], double y[N]) {
  int i, j;
  double k, s, t;
  k = (1.0 - exp(-alpha)) / sqrtf(alpha);
  s = t = k * pow(2.0, -alpha) + 3 / 2;
  for (i = 0; i < N; i++) {
    y[i] = 0.0;
    for (j = 0; j < N; j++)
      y[i] += k * A[i][j] * x[j];
    y[i] = s * y[i];
  }
}
