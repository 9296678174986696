"""Data files shipped with litnn (read by `litnn.datasets`).

`digits.csv.gz`: the 1797 8x8 handwritten digits of the UCI ML "Optical Recognition of Handwritten Digits"
data set (its test part), by E. Alpaydin and C. Kaynak (1998),
https://archive.ics.uci.edu/ml/datasets/Optical+Recognition+of+Handwritten+Digits, licensed CC BY 4.0;
the file is the copy scikit-learn bundles as `sklearn/datasets/data/digits.csv.gz`, unchanged: one digit per
line, 64 pixel counts (0..16, row by row) then the label.

`sobol_direction_numbers.npz`: the direction numbers of S. Joe and F. Y. Kuo, "Constructing Sobol sequences with
better two-dimensional projections", SIAM J. Sci. Comput. 30, 2635-2654 (2008), file new-joe-kuo-6.21201 of
https://web.maths.unsw.edu.au/~fkuo/sobol/ (the numbers PyTorch compiles into its SobolEngine): `poly`, each
dimension's primitive polynomial as 2a + 2^s + 1, and `vinit`, its s initial direction numbers m_1..m_s (zeros after),
21201 dimensions, the first one degenerate (read by `litnn.quasirandom`).
"""
