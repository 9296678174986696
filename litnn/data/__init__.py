"""Data files shipped with litnn (read by `litnn.datasets`).

`digits.csv.gz`: the 1797 8x8 handwritten digits of the UCI ML "Optical Recognition of Handwritten Digits"
data set (its test part), by E. Alpaydin and C. Kaynak (1998),
https://archive.ics.uci.edu/ml/datasets/Optical+Recognition+of+Handwritten+Digits, licensed CC BY 4.0;
the file is the copy scikit-learn bundles as `sklearn/datasets/data/digits.csv.gz`, unchanged: one digit per
line, 64 pixel counts (0..16, row by row) then the label.
"""
