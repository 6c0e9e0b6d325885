"""Train the block classifier (method E) on the development sets, or measure how it holds.

    newsextract train                       # all development sets; writes the shipped model
    newsextract train --data DIR --sets dragnet,msv_chaos --out /tmp/model.json
    newsextract train --holdout             # the generalisation table: every set left out
    newsextract train --holdout dragnet,wcxb_dev --cross-fit 1   # a quicker look at two
    newsextract train --folds 3             # K folds by site within every set
    newsextract train --folds 3 --site-mode # and site mode on the same unseen sites

``--holdout`` and ``--folds`` write no model.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from newsextract.evaluation.dataset import development_data_dir
from newsextract.extraction.classifier import MODEL_FILE
from newsextract.training.fit import COMBINATION_DEFAULT, CROSS_FIT_FOLDS, FitConfig, fit_model
from newsextract.training.heldout import (
    HEADER,
    WITHIN_FOLDS_DEFAULT,
    WITHIN_SETS_DEFAULT,
    HeldOutConfig,
    format_table,
    held_out_rows,
)
from newsextract.training.kfold import KFoldConfig, kfold_scores
from newsextract.training.samples import PageSample, load_sets

#: The development sets trained on by default: the 2007-2017 sets, today's web and the
#: many-language set (whose snippet gold labels only the blocks that hold a snippet).
DATASETS_DEFAULT = (
    "dragnet",
    "cleaneval",
    "cleanportaleval",
    "msv_big9_dev",
    "msv_chaos",
    "chinese_wced",
    "wcxb_dev",
    "trafilatura_eval_dev",
)
MODEL_PATH_DEFAULT = Path(__file__).resolve().parent.parent / "extraction" / "models" / MODEL_FILE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="folder of development sets (default: ../shared/data or $NEWSEXTRACT_SHARED_DATA)",
    )
    parser.add_argument(
        "--sets", default=",".join(DATASETS_DEFAULT), help="comma-separated set names to train on"
    )
    parser.add_argument(
        "--out", type=Path, default=MODEL_PATH_DEFAULT, help="where to write the model JSON"
    )
    parser.add_argument(
        "--combination",
        choices=("add", "weighted", "max"),
        default=COMBINATION_DEFAULT,
        help="how the word model joins the layout classifier (add: it may raise a block's "
        "posterior, never lower it)",
    )
    parser.add_argument("--layout-weight", type=float, default=0.7)
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument(
        "--holdout",
        nargs="?",
        const="",
        default=None,
        metavar="SETS",
        help="print the generalisation table (SETS, comma-separated, each left out of training "
        "in turn; default every set) beside the shipped model and the best reference",
    )
    parser.add_argument(
        "--within-folds",
        type=int,
        default=WITHIN_FOLDS_DEFAULT,
        metavar="K",
        help="with --holdout: folds by site within wcxb_dev and trafilatura_eval_dev "
        f"(default {WITHIN_FOLDS_DEFAULT}; 0 leaves that column out)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="with --holdout: fit N models at once (each takes about 2 GB; default one at a "
        "time) and read pages in N processes (default: one a CPU, at most 4)",
    )
    parser.add_argument(
        "--cross-fit",
        type=int,
        default=CROSS_FIT_FOLDS,
        metavar="FOLDS",
        help=f"folds of the context stage's cross-fitting (default {CROSS_FIT_FOLDS}; "
        "1 is twice as fast, for quick comparisons)",
    )
    parser.add_argument(
        "--folds",
        type=int,
        default=None,
        metavar="K",
        help="print K-fold F1 of every set (folds grouped by site, each fold's model trained "
        "on all other folds) beside the shipped model's in-sample F1 instead of writing a model",
    )
    parser.add_argument(
        "--site-mode",
        action="store_true",
        help="with --folds: also site mode, each page read with its fold's model, on the sets "
        "of the site-group table (msv_big9_dev, cleanportaleval, dragnet's sites with 5+ pages)",
    )


def run(args: argparse.Namespace) -> int:
    data = args.data or development_data_dir()
    names = [s for s in args.sets.split(",") if s]
    missing = [name for name in names if not (data / name / "manifest.jsonl").exists()]
    if missing:
        print(f"no manifest.jsonl for {', '.join(missing)} under {data}", file=sys.stderr)
        return 2
    if args.folds is not None and args.folds < 2:
        print("--folds needs at least 2 folds", file=sys.stderr)
        return 2
    fit = FitConfig(args.combination, args.layout_weight, args.threshold, args.cross_fit)
    print(f"reading {', '.join(names)} from {data}", flush=True)
    samples = load_sets(data, names)
    blocks = sum(len(s.texts) for s in samples)
    print(f"training on {len(samples)} pages, {blocks} blocks", flush=True)
    if args.holdout is not None:
        return _holdout(args, data, samples, fit)
    if args.folds is not None:
        kfold_scores(samples, KFoldConfig(data, args.folds, fit, args.site_mode))
        return 0
    model = fit_model(samples, fit)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(model.to_json(), separators=(",", ":"), ensure_ascii=False))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    return 0


def _holdout(
    args: argparse.Namespace, data: Path, samples: list[PageSample], fit: FitConfig
) -> int:
    held = tuple(s for s in args.holdout.split(",") if s)
    unknown = [name for name in held if name not in {s.dataset for s in samples}]
    if unknown:
        print(f"--holdout names sets not read: {', '.join(unknown)}", file=sys.stderr)
        return 2
    within = () if args.within_folds < 2 else WITHIN_SETS_DEFAULT
    folds = max(args.within_folds, 2)
    config = HeldOutConfig(data, held, within, folds, fit, workers=args.workers)
    print(HEADER, flush=True)
    rows = held_out_rows(samples, config)
    print("\n" + format_table(rows))
    return 0
