"""sci-eval's Hydra configs (``pkg://sci_tasks.conf``). Importing the package, which Hydra
does before it composes, registers the ``data`` options from the benchmark declarations
(``sci_tasks.registry``: the common root and each benchmark's own key, all unset) and the
``sci_cache_root`` resolver (``sci_tasks.cache.cache_root``, the one cache-root rule)."""

from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from sci_tasks import registry
from sci_tasks.cache import cache_root
from sci_tasks.data.locate import ROOT_KEY

# data/locations: the keys exist, so `sci-eval data.SCIMIF_DATA_DIR=...` needs no `+`
ConfigStore.instance().store(
    group="data",
    name="locations",
    node={ROOT_KEY: None, **dict.fromkeys(registry.data_keys().values())},
)

OmegaConf.register_new_resolver("sci_cache_root", lambda: str(cache_root()), replace=True)
