"""``sci-agree``: how far scorings of the same samples agree (issue 29).

An *item* is one check of one logged sample: SciMIF's constraint, SPM-Bench's exact match,
SciGen-Verify's judgement / explanation / edit (each benchmark's ``checks`` hook, as sci-view
reads them). A *source* gives a value to items: a run folder, a sci-score output folder, or
a labelling sheet filled by hand (``export`` writes it blind). Items are matched by
``item_id`` across sources; agreement is Cohen's kappa for two sources and Fleiss' kappa for
more, with a seeded bootstrap interval.

- ``items``: the item and its id, reading sources (runs and sheets);
- ``export``: the blind labelling sheet, stratified by constraint;
- ``kappa``: agreement, kappa (scikit-learn, statsmodels), bootstrap, confusion matrices;
- ``cli``: the command, its printout, ``agreement.csv`` and ``disagreements.jsonl``;
- ``view``: ``disagreements.jsonl`` as sci-view's runs.
"""
