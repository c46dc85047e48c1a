"""The benchmark datasets: the thesis' 31 (Yang 2024, ch. 3, Table 3.2) and the 4 of the scale benchmark.

Each entry says where the study's copy of the data lives (``file``, relative to a data directory
such as the study's ``shared/datasets``), how to read it, its SHA-256 checksum, where the data come
from publicly and under which terms, where the exact bytes can be downloaded (a URL pinned to a
commit), and, for the thesis datasets, the numbers Table 3.2 prints for it (rows, columns with the
label included, classes, largest and smallest class probability).

* :data:`REGISTRY`: the 31 thesis datasets, in Table 3.2's order.
* :data:`LARGE_DATASETS`: ``cover``, ``campaign``, ``shuttle`` and ``skin`` (ADBench), the larger
  datasets of the scale benchmark (the ``large`` profile). They are not thesis datasets, so they
  are kept out of :data:`REGISTRY` (and of Table 3.2 and the ``paper`` profile).

Download sources, pinned so that the bytes cannot change under the checksums:

* the 18 UCI CSV files from the authors' public repository, GitHub ``ylincen/TURS2``, folder
  ``datasets/``, at commit :data:`TURS2_COMMIT` (their SHA-256 equal the study's); the UCI page
  stays the cited source (``url``);
* the ADBench files from GitHub ``Minqi824/ADBench``, ``adbench/datasets/Classical/``, at
  commit :data:`ADBENCH_COMMIT`.

The tables below are the single place these facts are written down; ``docs/datasets.md`` and
the tests read them from here.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ADBENCH_COMMIT",
    "DEFAULT_BASE_URL",
    "DatasetInfo",
    "LARGE_DATASETS",
    "REGISTRY",
    "TURS2_COMMIT",
    "list_datasets",
]

#: Where the pinned files are served; ``remote_path`` is relative to it. A mirror with the same
#: layout can replace it (``TURS_DATA_BASE_URL``, see :mod:`turs.datasets._fetch`).
DEFAULT_BASE_URL = "https://raw.githubusercontent.com/"
#: Commit of GitHub ylincen/TURS2 whose ``datasets/`` folder holds the study's 18 UCI CSV files.
TURS2_COMMIT = "d0230a0020f2b44f490f73f07f447839dae1603f"
#: Commit of GitHub Minqi824/ADBench whose ``adbench/datasets/Classical/`` holds our ADBench files.
ADBENCH_COMMIT = "f7fed68dea6901fe9a81ed51b251b1d2456790cd"

_UCI_LICENCE = "CC BY 4.0 (as stated on the UCI Machine Learning Repository page)"
_ADBENCH_LICENCE = (
    "ADBench repository: BSD 2-Clause licence; ADBench redistributes a public dataset, "
    "whose original source's terms also apply"
)
_KAGGLE_LICENCE = "see the Kaggle dataset page (terms not checked here)"
_TURS2_DIR = f"ylincen/TURS2/{TURS2_COMMIT}/datasets/"
_ADBENCH_DIR = f"Minqi824/ADBench/{ADBENCH_COMMIT}/adbench/datasets/Classical/"
# backdoor has no checksum and is not pinned: its cited source stays the file on ADBench's main.
_ADBENCH_MAIN = "https://github.com/Minqi824/ADBench/raw/main/adbench/datasets/Classical/"


@dataclass(frozen=True)
class DatasetInfo:
    """What the package knows about one benchmark dataset.

    Attributes
    ----------
    name : str
        Thesis name (Table 3.2), e.g. ``"glass-2"``, or the scale benchmark's name (``"cover"``).
    collection : str
        Where the study's file comes from: ``"uci"`` or ``"adbench"``.
    file : str
        Path of the file relative to a data directory, e.g. ``"uci/car.csv"``,
        ``"large/cover.npz"``.
    format : str
        ``"csv"`` or ``"npz"`` (arrays ``X`` and ``y``).
    csv_header : bool or None
        For CSV: whether the first line is a header. ``None`` for npz files.
    label : str
        Where the label is: ``"last"`` (last CSV column) or the npz key ``"y"``.
    sha256 : str or None
        SHA-256 of the file; ``None`` when unknown (backdoor).
    url : str
        Public source of the data, as cited (the UCI or Kaggle page; for ADBench, the raw file
        at the pinned commit).
    remote_path : str or None
        Where exactly ``file`` is served, relative to :data:`DEFAULT_BASE_URL` (owner, repository,
        commit, path); :attr:`download_url` is the full URL. ``None`` when the file cannot be
        fetched automatically (backdoor: no checksum).
    licence : str
        Terms of use, as far as known.
    notes : str
        Provenance and quirks.
    thesis_source, thesis_rows, thesis_columns, thesis_classes : str, int, int, int
        As printed in Table 3.2; ``thesis_columns`` counts the label column. ``None`` for a
        dataset that is not in the thesis (``group="large"``).
    thesis_max_class_prob, thesis_min_class_prob : float
        As printed in Table 3.2 (three decimals); ``None`` outside the thesis.
    id_column : int or None
        Position of a row-ID column in the file (it is named ``"row_id"`` when loaded and can
        be dropped with ``load(..., drop_id=True)``), else ``None``.
    available : bool
        Whether the study's data folder holds the file (``False`` only for backdoor).
    group : str
        ``"thesis"`` (Table 3.2, :data:`REGISTRY`) or ``"large"`` (the scale benchmark,
        :data:`LARGE_DATASETS`).
    """

    name: str
    collection: str
    file: str
    format: str
    csv_header: bool | None
    label: str
    sha256: str | None
    url: str
    remote_path: str | None
    licence: str
    notes: str
    thesis_source: str | None
    thesis_rows: int | None
    thesis_columns: int | None
    thesis_classes: int | None
    thesis_max_class_prob: float | None
    thesis_min_class_prob: float | None
    id_column: int | None = None
    available: bool = True
    group: str = "thesis"

    @property
    def thesis_features(self) -> int | None:
        """Number of feature columns in Table 3.2 (its column count minus the label)."""
        return None if self.thesis_columns is None else self.thesis_columns - 1

    @property
    def download_url(self) -> str | None:
        """The pinned URL that serves exactly ``file`` (``None`` when there is none)."""
        return None if self.remote_path is None else DEFAULT_BASE_URL + self.remote_path


def _uci(name, file, header, sha256, url, notes, thesis, *, id_column=None, licence=_UCI_LICENCE):
    source, rows, cols, classes, pmax, pmin = thesis
    return DatasetInfo(
        name=name, collection="uci", file=file, format="csv", csv_header=header, label="last",
        sha256=sha256, url=url, remote_path=_TURS2_DIR + file.rsplit("/", 1)[-1],
        licence=licence, notes=notes,
        thesis_source=source, thesis_rows=rows, thesis_columns=cols, thesis_classes=classes,
        thesis_max_class_prob=pmax, thesis_min_class_prob=pmin, id_column=id_column,
    )


def _adbench(name, file, adbench_file, sha256, notes, thesis, *, available=True):
    source, rows, cols, classes, pmax, pmin = thesis
    remote = _ADBENCH_DIR + adbench_file if sha256 else None
    url = DEFAULT_BASE_URL + remote if remote else _ADBENCH_MAIN + adbench_file
    return DatasetInfo(
        name=name, collection="adbench", file=file, format="npz", csv_header=None, label="y",
        sha256=sha256, url=url, remote_path=remote, licence=_ADBENCH_LICENCE,
        notes=notes, thesis_source=source, thesis_rows=rows, thesis_columns=cols,
        thesis_classes=classes, thesis_max_class_prob=pmax, thesis_min_class_prob=pmin,
        available=available,
    )


# Order and numbers as in Table 3.2 (binary datasets first, then multi-class).
_TABLE = (
    _adbench("aloi", "adbench/ALOI.npz", "1_ALOI.npz",
             "792d0b5bd1147bfc9574a1974f157b39fbd4cbed8ecd04cf983fd554498ed477",
             "ADBench Classical 1_ALOI",
             ("adbench", 49534, 28, 2, 0.970, 0.030)),
    _adbench("backdoor", "adbench/backdoor.npz", "3_backdoor.npz", None,
             "ADBench Classical 3_backdoor; not part of the study's data folder (the file is too "
             "large for the mirror); no checksum is recorded, so a copy saved as "
             "adbench/backdoor.npz in a data directory is loaded unverified",
             ("adbench", 95329, 197, 2, 0.976, 0.024), available=False),
    _uci("backnote", "uci/backnote.csv", False,
         "d0539aaed2139ba7a587b3e34fb345ce503ff7d5d33dbf9912d8e195ce425cb9",
         "https://archive.ics.uci.edu/dataset/267/banknote+authentication",
         "UCI banknote authentication",
         ("uci", 1372, 5, 2, 0.555, 0.445)),
    _uci("chess", "uci/chess.csv", False,
         "70a5540902b4063d3977d3e820ac5b9fe5624eb5d93709eee5d50d7a94fca205",
         "https://archive.ics.uci.edu/dataset/22/chess+king+rook+vs+king+pawn",
         "UCI chess (king-rook vs king-pawn); categorical; the file ends with blank lines "
         "(skipped)",
         ("uci", 3196, 37, 2, 0.522, 0.478)),
    _uci("diabetes", "uci/diabetes.csv", True,
         "698c203a14aa31941d2251175330c9199f3ccdb31597abbba2a3e35416257a72",
         "https://www.kaggle.com/datasets/uciml/pima-indians-diabetes-database",
         "Pima Indians diabetes (Kaggle copy)",
         ("uci", 768, 9, 2, 0.651, 0.349), licence=_KAGGLE_LICENCE),
    _adbench("glass-2", "adbench/glass.npz", "14_glass.npz",
             "aa7a8db1d475ba01a10488af454bc15220a3d5951b010b03b7020567d8152cdc",
             "ADBench Classical 14_glass (binary; no row-ID column, unlike the UCI glass file)",
             ("adbench", 214, 8, 2, 0.958, 0.042)),
    _uci("ionosphere", "uci/ionosphere.csv", False,
         "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd",
         "https://archive.ics.uci.edu/dataset/52/ionosphere",
         "UCI ionosphere; the second column is constant (0)",
         ("uci", 351, 35, 2, 0.641, 0.359)),
    _uci("magic", "uci/magic.csv", False,
         "e9314b7ebd4b4b59a3b3d65f7316663963777b16a46786877651dbbaa640b36a",
         "https://archive.ics.uci.edu/dataset/159/magic+gamma+telescope",
         "UCI MAGIC gamma telescope",
         ("uci", 19020, 11, 2, 0.648, 0.352)),
    _adbench("mammography", "adbench/mammography.npz", "23_mammography.npz",
             "a0308ac9712d78321073b1c2dc98dc37665c0f35c1cc33019416fe8f8d7de7ea",
             "ADBench Classical 23_mammography",
             ("adbench", 11183, 7, 2, 0.977, 0.023)),
    _adbench("musk", "adbench/musk.npz", "25_musk.npz",
             "2ed3f4392197b76a1e59116ff880c7720a4b026cf4842073a53b56fdea265017",
             "ADBench Classical 25_musk",
             ("adbench", 3062, 167, 2, 0.968, 0.032)),
    _adbench("optdigits", "adbench/optdigits.npz", "26_optdigits.npz",
             "60de17a375a278ba220a7849727d998aa02b5e2f9fd17732a004bba28de4656e",
             "ADBench Classical 26_optdigits (binary); Table 3.2 lists the source as uci",
             ("uci", 5216, 65, 2, 0.971, 0.029)),
    _adbench("pendigits-2", "adbench/pendigits.npz", "28_pendigits.npz",
             "c4936b89dcdad59d303020e492f763a0f54170080d787c77497609acbb9c2d79",
             "ADBench Classical 28_pendigits (binary); Table 3.2 lists the source as uci",
             ("uci", 6870, 17, 2, 0.977, 0.023)),
    _adbench("satimage-2", "adbench/satimage-2.npz", "31_satimage-2.npz",
             "1b056e357f801b8b20c3f380a30224a3c4088d7ed764ec5a24828dc9b1918d6f",
             "ADBench Classical 31_satimage-2",
             ("adbench", 5803, 37, 2, 0.988, 0.012)),
    _adbench("smtp", "adbench/smtp.npz", "34_smtp.npz",
             "d2569fc9bc12115419e3f5b37d19921e10e6c26e5ad1e61064cfb0fbc402dfdd",
             "ADBench Classical 34_smtp (Table 3.2 prints 'smt'); 30 positives in 95,156 rows",
             ("adbench", 95156, 4, 2, 1.000, 0.000)),
    _adbench("thyroid", "adbench/thyroid.npz", "38_thyroid.npz",
             "8de161b3f235b7647bb0b39a836d983ff61d67bf234edac461da2d71e889cb87",
             "ADBench Classical 38_thyroid",
             ("adbench", 3772, 7, 2, 0.975, 0.025)),
    _uci("tic-tac-toe", "uci/tic-tac-toe.csv", False,
         "a996a756484d0cf8cbad1680d823aadbfcff8ae2d78c450e6999362d580301c5",
         "https://archive.ics.uci.edu/dataset/101/tic+tac+toe+endgame",
         "UCI tic-tac-toe endgame; categorical",
         ("uci", 958, 10, 2, 0.653, 0.347)),
    _adbench("vowels", "adbench/vowels.npz", "40_vowels.npz",
             "4bfc4244d1c882773bbbc50d4a5db5e52276e53506e46b2d45e02d074cfcb1b6",
             "ADBench Classical 40_vowels",
             ("adbench", 1456, 13, 2, 0.966, 0.034)),
    _adbench("waveform-2", "adbench/Waveform.npz", "41_Waveform.npz",
             "6c9d867337ad1a2f8372c1d27f4c032f0401237e2041b7c45f00de8d319ff30f",
             "ADBench Classical 41_Waveform (binary)",
             ("adbench", 3443, 22, 2, 0.971, 0.029)),
    _adbench("wdbc", "adbench/WDBC.npz", "43_WDBC.npz",
             "78d4606a1ab516f5b60b00c196497f3bbd6bd5e4548fd04cf5f2475209b34b85",
             "ADBench Classical 43_WDBC",
             ("adbench", 367, 31, 2, 0.973, 0.027)),
    _uci("anuran", "uci/anuran.csv", True,
         "2085948293a94e9d969cb5e453b4dadc0ed0a68f7615296abada0f6a9f6bee3c",
         "https://archive.ics.uci.edu/dataset/406/anuran+calls+mfccs",
         "UCI anuran calls (MFCCs); label = Family (one of the file's label columns); the first "
         "column (empty header) is a row index, counted in Table 3.2; the rows are grouped by "
         "family (largely), so the index carries label information",
         ("uci", 7195, 24, 4, 0.614, 0.009), id_column=0),
    _uci("avila", "uci/avila.csv", True,
         "f8715f99ae0ce1b681140b05a2b33d3e0c0cc4b98d387a9c0107cecce358f667",
         "https://archive.ics.uci.edu/dataset/459/avila",
         "UCI avila; header names carry leading spaces (stripped); the smallest class has 10 "
         "rows (p = 0.0005, printed 0.001 in Table 3.2)",
         ("uci", 20867, 11, 12, 0.411, 0.001)),
    _uci("car", "uci/car.csv", False,
         "b703a9ac69f11e64ce8c223c0a40de4d2e9d769f7fb20be5f8f2e8a619893d83",
         "https://archive.ics.uci.edu/dataset/19/car+evaluation",
         "UCI car evaluation; categorical",
         ("uci", 1728, 7, 4, 0.700, 0.038)),
    _uci("contracept", "uci/contracept.csv", False,
         "ad2a49da55df24b061a994ecc4d90c856aba35acd05138851aa251c4f06303c9",
         "https://archive.ics.uci.edu/dataset/30/contraceptive+method+choice",
         "UCI contraceptive method choice; integer-coded, all but the first column one-hot "
         "encoded by the default preprocessing",
         ("uci", 1473, 10, 3, 0.427, 0.226)),
    _uci("drybeans", "uci/DryBeans.csv", True,
         "bad0a2fbfb1fc7d88c1172fb330bd34414e38f28f49589bad7db4b5dd7b12dd2",
         "https://archive.ics.uci.edu/dataset/602/dry+bean+dataset",
         "UCI dry bean",
         ("uci", 13611, 17, 7, 0.261, 0.038)),
    _uci("glass", "uci/glass.csv", False,
         "dd67373f4baf2807345df02cbfef2093d342e61ad0d82a4fb79af43ef8ce449d",
         "https://archive.ics.uci.edu/dataset/42/glass+identification",
         "UCI glass identification; the first column is the row ID and the rows are sorted by "
         "class, so the ID leaks the label; the thesis result (ROC-AUC 0.967) was obtained "
         "with it",
         ("uci", 214, 11, 6, 0.355, 0.042), id_column=0),
    _uci("heartcleveland", "uci/HeartCleveland.csv", False,
         "a74b7efa387bc9d108d7d0115d831fe9b414b29ae7124f331b622b4efa0427c8",
         "https://archive.ics.uci.edu/dataset/45/heart+disease",
         "UCI heart disease (Cleveland); columns 11 and 12 hold '?' for missing values, so they "
         "are read as text and one-hot encoded ('?' is a level)",
         ("uci", 303, 14, 5, 0.541, 0.043)),
    _uci("iris", "uci/iris.csv", False,
         "6f608b71a7317216319b4d27b4d9bc84e6abd734eda7872b71a458569e2656c0",
         "https://archive.ics.uci.edu/dataset/53/iris",
         "UCI iris; the file ends with a blank line (skipped)",
         ("uci", 150, 5, 3, 0.333, 0.333)),
    _uci("pendigits", "uci/pendigits.csv", False,
         "e2b9eb9f0d0467e2b64a4816a3420edf2b8043447576f4b84337aba44a9f97d3",
         "https://archive.ics.uci.edu/dataset/81/pen+based+recognition+of+handwritten+digits",
         "UCI pen-based recognition of handwritten digits (the training file, 7,494 rows)",
         ("uci", 7494, 17, 10, 0.104, 0.096)),
    _uci("vehicle", "uci/Vehicle.csv", True,
         "f84a2bfc3203ec1643b1241ad9d804fecf4cbee61906f84d755f85ac8c2661b1",
         "https://archive.ics.uci.edu/dataset/149/statlog+vehicle+silhouettes",
         "UCI statlog vehicle silhouettes",
         ("uci", 846, 19, 4, 0.258, 0.235)),
    _uci("waveform", "uci/waveform.csv", False,
         "da332f3121943f586826f5d1b2cdd354548c59f71ddbf28c4d0c2eb623d7bfc3",
         "https://archive.ics.uci.edu/dataset/107/waveform+database+generator+version+1",
         "UCI waveform database generator (version 1)",
         ("uci", 5000, 22, 3, 0.339, 0.329)),
    _uci("wine", "uci/wine.csv", False,
         "4f69e75a8f6d75aa58fb193c4c81fe5578ac505a295e7ceadf882f8fe203eced",
         "https://archive.ics.uci.edu/dataset/109/wine",
         "UCI wine; the class and proline columns are swapped relative to the UCI original "
         "(here proline is first and the class last)",
         ("uci", 178, 14, 3, 0.399, 0.270)),
)

#: Thesis name -> :class:`DatasetInfo`, in Table 3.2's order.
REGISTRY: dict[str, DatasetInfo] = {info.name: info for info in _TABLE}


def _large(name, adbench_file, sha256, notes):
    remote = _ADBENCH_DIR + adbench_file
    return DatasetInfo(
        name=name, collection="adbench", file=f"large/{name}.npz", format="npz",
        csv_header=None, label="y", sha256=sha256, url=DEFAULT_BASE_URL + remote,
        remote_path=remote, licence=_ADBENCH_LICENCE, notes=notes, thesis_source=None,
        thesis_rows=None, thesis_columns=None, thesis_classes=None, thesis_max_class_prob=None,
        thesis_min_class_prob=None, group="large",
    )


# The scale benchmark's larger ADBench datasets (not in the thesis), smallest first
# (rows x features); sizes as in the study's files (shared/datasets/large/MANIFEST.csv).
_LARGE_TABLE = (
    _large("shuttle", "32_shuttle.npz",
           "26900b0f6be45d9ddb7a402c9b2f956ceda42d23a8ca4cf4406b8bc1352823d1",
           "ADBench Classical 32_shuttle; scale benchmark (not a thesis dataset); 49,097 rows, "
           "9 integer features, 2 classes (3,511 positives, 7.2%)"),
    _large("skin", "33_skin.npz",
           "d02aa01ffc1b6bf2b8b1ac250c90e8a8eacd0cefc962940ed5cc4bf5deac9c95",
           "ADBench Classical 33_skin; scale benchmark (not a thesis dataset); 245,057 rows, "
           "3 features, 2 classes (50,859 positives, 20.8%)"),
    _large("campaign", "5_campaign.npz",
           "74dd4d0072d6c6f1aabab63bc102f9633454f32bb936fa9bcfbd38f9f2386bcd",
           "ADBench Classical 5_campaign; scale benchmark (not a thesis dataset); 41,188 rows, "
           "62 features, 2 classes (4,640 positives, 11.3%)"),
    _large("cover", "10_cover.npz",
           "945a097c3542ae81a551bf1c06dcad78a755d94f84fcaf1d60687e42d1a656df",
           "ADBench Classical 10_cover; scale benchmark (not a thesis dataset); 286,048 rows, "
           "10 integer features, 2 classes (2,747 positives, 1.0%)"),
)

#: Name -> :class:`DatasetInfo` of the scale benchmark's datasets (the ``large`` profile),
#: smallest first. Not thesis datasets: :data:`REGISTRY` and :func:`list_datasets` leave them out.
LARGE_DATASETS: dict[str, DatasetInfo] = {info.name: info for info in _LARGE_TABLE}


def list_datasets(*, collection: str | None = None) -> list[str]:
    """Names of the thesis datasets, in Table 3.2's order.

    Parameters
    ----------
    collection : {"uci", "adbench"} or None
        Only the datasets whose study file comes from that collection; all when ``None``.
    """
    if collection is not None and collection not in ("uci", "adbench"):
        raise ValueError(
            f"collection must be 'uci', 'adbench' or None. Got {collection!r} instead."
        )
    return [n for n, info in REGISTRY.items() if collection in (None, info.collection)]
