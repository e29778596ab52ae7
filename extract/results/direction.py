"""Which way a metric is better, from its name (leaderboards order scores by it)."""

from __future__ import annotations

import re

#: Metrics where less is better, matched on the normalized name: errors, losses, distances,
#: costs. Everything else that names a score (accuracy, F1, BLEU, success rate, ...) is higher.
_LOWER = re.compile(
    r"\b(error|errors|loss|perplexity|ppl|fid|kid|fvd|lpips|wer|cer|mse|mae|rmse|nll|regret|latency|"
    r"runtime|run time|time|memory|cost|distance|divergence|ece|calibration error|bits per|bpd|bpc|"
    r"miss rate|false positive rate|fpr|eer|chamfer|epe|ade|fde|mpjpe|abs rel|sq rel|delay|"
    r"violation|variance|gap)\b")
_HIGHER = re.compile(
    r"\b(accuracy|acc|f1|f-1|f score|f1 score|bleu|rouge|meteor|cider|spice|auc|auroc|auprc|map|ap|"
    r"iou|miou|dice|psnr|ssim|recall|precision|ndcg|mrr|hit|hits|success|win rate|reward|return|"
    r"score|pass|exact match|em|top 1|top 5|top-1|top-5|r2|correlation|kappa|coverage|throughput|"
    r"speedup|speed up|efficiency|inception score|clip score|human normalized)\b")


def metric_direction(name: str | None) -> str | None:
    """``"lower"`` or ``"higher"`` (is better) for a metric name, None when the name does not say.

    >>> metric_direction("top-1 accuracy"), metric_direction("FID"), metric_direction("word error rate")
    ('higher', 'lower', 'lower')
    >>> metric_direction("diversity") is None
    True
    """
    if not name:
        return None
    text = name.lower().replace("_", " ")
    if _LOWER.search(text):
        return "lower"
    if _HIGHER.search(text):
        return "higher"
    return None
