"""sci-eval's and sci-score's Hydra configs (``pkg://sci_tasks.conf``). Importing the
package, which Hydra does before it composes, registers the typed schema of every config
(``sci_tasks.run_config.register``: the run configuration, the ``data`` options from the
benchmark declarations, each group option's kind) and the ``sci_cache_root`` resolver
(``sci_tasks.cache.cache_root``, the one cache-root rule)."""

from omegaconf import OmegaConf

from sci_tasks import run_config
from sci_tasks.cache import cache_root

run_config.register()

OmegaConf.register_new_resolver("sci_cache_root", lambda: str(cache_root()), replace=True)
