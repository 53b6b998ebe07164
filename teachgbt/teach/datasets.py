"""Small datasets from the tutorials, and the one-hot encoding trees need.

    >>> import teachgbt as tg
    >>> df = tg.datasets.troll2()            # seed 004's six rows, as printed there
    >>> X, y = tg.datasets.troll2_xy()       # the same, colours one-hot encoded

Trees split numbers, so a text column such as ``favorite_color`` becomes one
0/1 column per colour (one-hot encoding, seed 002 "categorical variables"):

    >>> tg.datasets.one_hot(df.drop(columns="love_troll2"))
       like_popcorn  age  favorite_color_blue  favorite_color_green  favorite_color_red
    0          True   12                  1.0                   0.0                 0.0
    ...

``pd.get_dummies(df, columns=["favorite_color"], dtype=float)`` gives the same
columns (at the end of the frame instead of in place).
"""

from __future__ import annotations

import pandas as pd

from ..utils import text_columns

__all__ = ["family", "troll2", "troll2_xy", "ice_cream", "ice_cream_xy", "one_hot"]


def family():
    """Seed 000's family, ten people: the boy, girl, mom, grandpa and grandma of its
    picture of two trees (whether someone likes computer games) and five more.

    Three features, ``age``, ``is_male`` and ``uses_computer_daily`` (0/1), indexed by
    who each is. Lesson 2 draws the picture's two trees on the first five; lessons 3 and
    5 boost trees of their own with those two trees' scores as the target.
    """
    who = ["boy", "girl", "mom", "grandpa", "grandma", "dad", "teen", "aunt", "cousin", "uncle"]
    return pd.DataFrame(
        {
            "age": [10, 8, 38, 75, 72, 41, 14, 35, 12, 30],
            "is_male": [1, 0, 0, 1, 0, 1, 1, 0, 0, 1],
            "uses_computer_daily": [1, 0, 1, 0, 0, 1, 0, 0, 1, 0],
        },
        index=who,
    )


def troll2():
    """Seed 004's data: who loves the film Troll 2.

    Six people; ``like_popcorn`` and the target ``love_troll2`` are booleans,
    ``age`` a whole number, ``favorite_color`` text. The seed spells one colour
    ``gree``; it is ``green`` here.
    """
    rows = [
        (True, 12, "blue", True),
        (True, 87, "green", True),
        (False, 44, "blue", False),
        (True, 19, "red", False),
        (False, 32, "green", True),
        (False, 14, "blue", True),
    ]
    return pd.DataFrame.from_records(
        rows, columns=["like_popcorn", "age", "favorite_color", "love_troll2"]
    )


def troll2_xy():
    """``(X, y)`` of seed 004: colours one-hot encoded, target ``love_troll2``."""
    df = troll2()
    return one_hot(df.drop(columns="love_troll2")), df["love_troll2"]


def ice_cream():
    """A made-up regression toy: ice creams sold at a kiosk on eight days.

    ``temperature`` (°C), ``weekend`` (boolean) and ``weather`` (text: sunny,
    cloudy or rainy) against the target ``ice_creams_sold``. Small enough to
    follow every residual by hand, like seed 004's Troll 2 data.
    """
    rows = [
        (14, False, "rainy", 12),
        (18, True, "cloudy", 31),
        (22, False, "sunny", 38),
        (25, True, "sunny", 64),
        (17, False, "cloudy", 20),
        (29, False, "sunny", 55),
        (11, True, "rainy", 17),
        (27, True, "cloudy", 49),
    ]
    return pd.DataFrame.from_records(
        rows, columns=["temperature", "weekend", "weather", "ice_creams_sold"]
    )


def ice_cream_xy():
    """``(X, y)`` of :func:`ice_cream`: weather one-hot encoded, target ``ice_creams_sold``."""
    df = ice_cream()
    return one_hot(df.drop(columns="ice_creams_sold")), df["ice_creams_sold"]


def one_hot(df, columns=None, dtype=float):
    """One 0/1 column per category, in place of each text or categorical column.

    ``columns``: the columns to encode; by default every column that is not
    numeric or boolean. The new columns are named ``<column>_<value>``, values
    in sorted order, and take the position of the column they replace. The
    caller's frame is not changed.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"one_hot needs a pandas DataFrame; got {type(df).__name__}")
    if columns is None:
        columns = text_columns(df)
    else:
        columns = list(columns)
        missing = [c for c in columns if c not in df.columns]
        if missing:
            raise ValueError(
                f"one_hot: no column {missing[0]!r} in the frame; it has {list(df.columns)}"
            )
    parts = []
    for c in df.columns:
        if c not in columns:
            parts.append(df[[c]])
            continue
        values = df[c]
        if values.isna().any():
            row = values.index[values.isna().to_numpy()][0]
            raise ValueError(
                f"one_hot: column {c!r} is missing a value at row {row!r}; fill it or give "
                "it a category of its own first"
            )
        try:
            categories = sorted(values.unique())
        except TypeError:  # mixed types: order by their text
            categories = sorted(values.unique(), key=str)
        parts.append(
            pd.DataFrame(
                {f"{c}_{v}": (values == v).astype(dtype) for v in categories}, index=df.index
            )
        )
    out = pd.concat(parts, axis=1)
    names = [str(n) for n in out.columns]
    twice = [n for i, n in enumerate(names) if n in names[:i]]
    if twice:
        raise ValueError(
            f"one_hot: the column {twice[0]!r} would be there twice (a category's column "
            "<column>_<value> is named like another column): rename one of them first"
        )
    return out
