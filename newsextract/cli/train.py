"""Train the block classifier (method E) on the development sets, or measure how it holds.

The model is written to ``--out`` (JSON, and beside it the same model as arrays, which load
faster); it replaces the model shipped in the package only with ``--install``, so that a trial
run never changes what every later extraction uses.
``--holdout`` and ``--folds`` write no model.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from newsextract.evaluation.dataset import development_data_dir
from newsextract.extraction.evidence.classifier import MODEL_FILE, model_arrays
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
#: The model the package ships and extraction reads; ``--install`` replaces it.
INSTALLED_MODEL_PATH = (
    Path(__file__).resolve().parent.parent / "extraction" / "evidence" / "models" / MODEL_FILE
)
#: Where a trained model goes without ``--out``: the current folder.
OUT_DEFAULT = Path(MODEL_FILE)

DESCRIPTION = """\
Train the block classifier (method E) on the development sets, each a folder holding a
manifest.jsonl with gold text, or measure how it holds on pages it never saw.

The model is written to --out, with the same model as arrays beside it (.arrays, faster to
load); --install makes it the model the package ships, which every later extraction uses.
--holdout and --folds write no model.

Exit status: 0 done, 2 bad arguments or missing sets."""

EPILOG = """\
examples:
  newsextract train --out model.json                 # every development set
  newsextract train --data sets/ --sets first,second --out model.json
  newsextract train --install                        # replace the model the package ships
  newsextract train --holdout                        # the generalisation table
  newsextract train --holdout dragnet,wcxb_dev --cross-fit 1   # a quicker look at two sets
  newsextract train --folds 3 --site-mode            # K folds by site, and site mode on them
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="folder of the development sets (default: $NEWSEXTRACT_SHARED_DATA, else the "
        "development data of a source checkout)",
    )
    parser.add_argument(
        "--sets",
        default=",".join(DATASETS_DEFAULT),
        help="comma-separated names of the sets (folders of --data) to train on (default: "
        f"{', '.join(DATASETS_DEFAULT)})",
    )
    written = parser.add_mutually_exclusive_group()
    written.add_argument(
        "--out",
        type=Path,
        default=OUT_DEFAULT,
        help="where to write the model (JSON); its arrays, which extraction reads faster, "
        "go beside it (.arrays)",
    )
    written.add_argument(
        "--install",
        action="store_true",
        help="write the model into the package, replacing the shipped one that extraction uses",
    )
    parser.add_argument(
        "--combination",
        choices=("add", "weighted", "max"),
        default=COMBINATION_DEFAULT,
        help="how the word model joins the layout classifier (add: it may raise a block's "
        "posterior, never lower it)",
    )
    parser.add_argument(
        "--layout-weight",
        type=float,
        default=FitConfig.layout_weight,
        help="the layout classifier's weight beside the word model's (add, weighted)",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=FitConfig.threshold,
        help="the posterior at or above which a block is kept",
    )
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
    parser.add_argument("--quiet", action="store_true", help="show no progress")


def run(args: argparse.Namespace) -> int:
    data = args.data or development_data_dir()
    names = [s for s in args.sets.split(",") if s]
    missing = [name for name in names if not (data / name / "manifest.jsonl").exists()]
    if missing:
        print(
            f"newsextract train: no manifest.jsonl for {', '.join(missing)} under {data}",
            file=sys.stderr,
        )
        return 2
    if args.folds is not None and args.folds < 2:
        print("newsextract train: --folds needs at least 2 folds", file=sys.stderr)
        return 2
    if args.out.suffix == ".arrays":
        print("newsextract train: --out names the JSON, not its .arrays", file=sys.stderr)
        return 2
    if args.install and (args.folds is not None or args.holdout is not None):
        print(
            "newsextract train: --holdout and --folds write no model to --install", file=sys.stderr
        )
        return 2
    fit = FitConfig(args.combination, args.layout_weight, args.threshold, args.cross_fit)
    print(f"reading {', '.join(names)} from {data}", flush=True)
    samples = load_sets(data, names, quiet=args.quiet)
    blocks = sum(len(s.texts) for s in samples)
    print(f"training on {len(samples)} pages, {blocks} blocks", flush=True)
    if args.holdout is not None:
        return _holdout(args, data, samples, fit)
    if args.folds is not None:
        kfold_scores(samples, KFoldConfig(data, args.folds, fit, args.site_mode))
        return 0
    model = fit_model(samples, fit)
    out = INSTALLED_MODEL_PATH if args.install else args.out
    text = json.dumps(model.to_json(), separators=(",", ":"), ensure_ascii=False)
    arrays = out.with_suffix(".arrays")
    try:
        write_atomically(out, text.encode())
        write_atomically(arrays, model_arrays(text))
    except OSError as error:
        print(f"newsextract train: cannot write {out}: {error.strerror or error}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and its arrays, {arrays.name}")
    if args.install:
        print("installed: extraction now uses this model")
    return 0


def write_atomically(path: Path, data: bytes) -> None:
    """Write a file whole or not at all: a training run killed while writing must not leave
    a half-written model where extraction reads it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _holdout(
    args: argparse.Namespace, data: Path, samples: list[PageSample], fit: FitConfig
) -> int:
    held = tuple(s for s in args.holdout.split(",") if s)
    unknown = [name for name in held if name not in {s.dataset for s in samples}]
    if unknown:
        print(
            f"newsextract train: --holdout names sets not read: {', '.join(unknown)}",
            file=sys.stderr,
        )
        return 2
    within = () if args.within_folds < 2 else WITHIN_SETS_DEFAULT
    folds = max(args.within_folds, 2)
    config = HeldOutConfig(data, held, within, folds, fit, workers=args.workers)
    print(HEADER, flush=True)
    rows = held_out_rows(samples, config)
    print("\n" + format_table(rows))
    return 0
