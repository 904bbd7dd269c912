"""The worked examples of the two course documents, as exact data (stated once here).

`lesson`: Lesson 03, 把一个训练步算完整; `reading`: the reading on gradient accumulation.
"""

import sympy as sp

R = sp.Rational

# lesson: one record x = 2, y = 4 from w = 1, η = 0.1 (and η = 0.05 in exercise 1)
SINGLE_RECORD = [(2, 4)]
SINGLE_W = 1
SINGLE_LR = R(1, 10)
EXERCISE1_LR = R(5, 100)

# lesson: two equally weighted records (1, 2) and (3, 6) at w = 1, one record per microbatch
TWO_RECORDS = [[(1, 2)], [(3, 6)]]
TWO_W = 1
TWO_LR = R(1, 10)

# lesson exercise 2: microbatches of 2 and 1 records with mean gradients 3 and 9
EXERCISE2_SIZES = [2, 1]
EXERCISE2_MEANS = [3, 9]

# reading: three records (1, 0), (2, 0), (3, 0) at w = 1; microbatches of the first two and
# the last one; learning rate 0.1
THREE_RECORDS = [[(1, 0), (2, 0)], [(3, 0)]]
THREE_W = 1
THREE_LR = R(1, 10)

# reading: two equally weighted microbatch gradients 10 and −8, threshold 1
CLIP_GRADIENTS = [10, -8]
CLIP_THRESHOLD = 1

# reading: masked sequences, 100 and 20 valid tokens
TOKENS = [100, 20]
