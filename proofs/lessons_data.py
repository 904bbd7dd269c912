"""Lessons 05–07's worked numbers, as exact data (stated once here): the givens and torch's
printed values of the exercises of benchmarks/lessons07/exercises.toml that the tensor
statements instantiate (each block names its exercise id). The values were computed by torch
float64 and printed to 4 places; tests/test_tensor_statements.py checks every entry here against
the bank's file (a planted wrong claim against expected.json's right value), so a copy that
drifts fails.
"""

# lin-a: a linear layer z = W x + b, 2×3, mse_loss
LIN_A = {
    "W": [["0.9674", "0.6711", "0.5169"], ["0.3077", "-0.0911", "-0.2627"]],
    "x": ["1.8645", "-0.6919", "1.0249"],
    "b": ["0.6847", "-0.7951"],
    "y": ["-1.6171", "2.1236"],
}
LIN_A_GW = [["7.7767", "-2.8859", "4.2748"], ["-4.7567", "1.7652", "-2.6147"]]
LIN_A_GB = ["4.1710", "-2.5512"]

# linb-b: a linear layer on a batch of 3, Z = X Wᵀ + b, mse_loss
LINB_B = {
    "X": [["-0.3610", "-0.0557"], ["0.3208", "-0.4857"], ["3.4063", "-0.7496"]],
    "W": [["-0.5884", "-1.9175"], ["0.5825", "-2.2268"]],
    "b": ["0.6515", "-0.4130"],
    "Y": [["-0.0247", "-0.3982"], ["0.3292", "0.7908"], ["-0.7882", "-1.4974"]],
}
LINB_B_GW = [["0.9851", "-0.4090"], ["5.3985", "-1.1924"]]

# mlp-b: a two-layer ReLU network, batch of 2, mse_loss (no hidden pre-activation is 0)
MLP_B = {
    "X": [["-0.7714", "0.8644", "-0.7590"], ["0.2250", "0.1909", "-1.4879"]],
    "W1": [["-1.1825", "1.1631", "2.2301"], ["1.0981", "-0.1797", "-2.1052"]],
    "b1": ["0.4845", "-0.3561"],
    "W2": [["-0.3521", "1.4041"]],
    "b2": ["0.0512"],
    "Y": [["0.6012"], ["0.0454"]],
}
MLP_B_GB1 = ["0.1633", "5.2498"]

# mlp-e: the same network with friendly numbers; two hidden pre-activations are exactly 0
MLP_E = {
    "X": [["1.5", "0.25"], ["-0.5", "1"], ["2", "-1"]],
    "W1": [["0.5", "-1"], ["1", "1"], ["-0.25", "0.5"]],
    "b1": ["-0.5", "0", "0.25"],
    "W2": [["1", "-0.5", "2"]],
    "b2": ["0.5"],
    "Y": [["1"], ["-1"], ["0.5"]],
}
MLP_E_GB1 = ["0.6667", "-0.8750", "4.0000"]

# sm-a: softmax, log_softmax and logsumexp of 2×3 logits
SM_A = {"Z": [["-0.4733", "-0.9816", "1.7223"], ["-0.3758", "-0.5584", "1.2620"]]}
SM_A_P = [["0.0945", "0.0568", "0.8487"], ["0.1433", "0.1194", "0.7373"]]
SM_A_S = ["1.8863", "1.5668"]

# sm-d: softmax of friendly logits
SM_D = {"Z": [["1", "2", "3"], ["0.5", "-0.5", "2"]]}
SM_D_P = [["0.0900", "0.2447", "0.6652"], ["0.1710", "0.0629", "0.7662"]]

# ce-f: cross_entropy of 3×3 logits against one-hot rows (classes 2, 1, 0)
CE_F = {"Z": [["1", "-1", "0.5"], ["0.25", "2", "-0.5"], ["0", "0.5", "1"]],
        "Y": [["0", "0", "1"], ["0", "1", "0"], ["1", "0", "0"]]}
CE_F_GZ = [["0.1914", "0.0259", "-0.2173"], ["0.0461", "-0.0679", "0.0218"],
           ["-0.2712", "0.1024", "0.1688"]]

# ce-e: cross_entropy of 2×3 logits, label smoothing 0.2 (classes 0, 2)
CE_E = {"Z": [["2", "1", "0.5"], ["0", "1", "-1"]], "Y": [["1", "0", "0"], ["0", "0", "1"]]}
CE_E_SMOOTHING = "0.2"
CE_E_GZ = [["-0.1191", "0.0823", "0.0368"], ["0.0890", "0.2993", "-0.3883"]]

# ln-d: LayerNorm of a 2×3 batch, no affine, eps 1e-5; upstream gradient G
LN_D = {"X": [["1", "2", "4"], ["-0.5", "0.25", "1.5"]],
        "G": [["0.5", "-1", "0.25"], ["0.2", "0.3", "-0.6"]]}
LN_D_Y = [["-1.0690", "-0.2673", "1.3363"], ["-1.1112", "-0.2020", "1.3132"]]
# ln-d's claimed Y is the bank's planted mistake unbiased_variance (the student's x.var()):
LN_D_Y_UNBIASED = [["-0.8729", "-0.2182", "1.0911"], ["-0.9073", "-0.1650", "1.0722"]]
LN_D_GX = [["0.4868", "-0.7302", "0.2434"], ["-0.1979", "0.3167", "-0.1188"]]

# ln-c: LayerNorm of a 3×3 batch, with weight and bias, eps 1e-5; upstream gradient G
LN_C = {
    "X": [["0.5963", "0.9497", "1.7277"], ["-1.3907", "-0.5638", "0.6254"],
          ["0.0208", "0.5271", "-1.2993"]],
    "G": [["1.8351", "0.7220", "1.3616"], ["0.6749", "-0.0398", "-0.0937"],
          ["-1.2612", "-0.5603", "-1.2286"]],
    "gamma": ["-1.1943", "1.3945", "-0.5869"],
    "beta": ["1.7539", "0.2961", "0.6724"],
}
LN_C_GX = [["-2.5604", "3.7233", "-1.1630"], ["-0.1868", "0.3167", "-0.1299"],
           ["1.5196", "-1.0984", "-0.4212"]]

# att-a: attention, 2 queries, 3 keys, d = 2
ATT_A = {"Q": [["0.6576", "0.3932"], ["0.3676", "-1.9664"]],
         "Km": [["-1.6605", "-1.6164"], ["1.8287", "0.9146"], ["-0.2612", "0.6209"]]}
ATT_A_D = 2
ATT_A_A = [["0.0675", "0.6914", "0.2411"], ["0.8791", "0.0645", "0.0564"]]
SM_D_S = ["3.4076", "2.2664"]
