"""The world's countries as documents name them: each country's usual English name, with the
other names and abbreviations that mean the same one ("U.S.", "USA", "America" for the United
States). Data for the values count (routes/values.py): "which countries does the report
mention?" is answered by the names, since a line that names France rarely says "country".

"America" alone is left out (Latin America, North America); so are nationalities ("German").
Names that are mostly something else in running text (Chad, Jordan, Georgia, Turkey as a bird)
are kept: a reader checks each listed line, cited on its page, and a country list that drops
Turkey would be wrong in most reports that say it.
"""

from __future__ import annotations

import re

# canonical name: other names (matched as words, case as written)
_ALIASES = {
    "United States": ("U.S.", "U.S.A.", "USA", "US", "United States of America"),
    "United Kingdom": ("U.K.", "UK", "Britain", "Great Britain"),
    "China": ("PRC", "People's Republic of China", "Mainland China"),
    "Russia": ("Russian Federation",),
    "South Korea": ("Republic of Korea", "Korea"),
    "North Korea": ("DPRK",),
    "Netherlands": ("Holland", "The Netherlands"),
    "Czech Republic": ("Czechia",),
    "United Arab Emirates": ("UAE", "U.A.E."),
    "Ivory Coast": ("Côte d'Ivoire", "Cote d'Ivoire"),
    "Myanmar": ("Burma",),
    "Eswatini": ("Swaziland",),
    "North Macedonia": ("Macedonia",),
    "Democratic Republic of the Congo": ("DR Congo", "DRC"),
    "Vatican City": ("Holy See",),
    "Timor-Leste": ("East Timor",),
    "Cabo Verde": ("Cape Verde",),
}
_NAMES = """
Afghanistan Albania Algeria Andorra Angola Argentina Armenia Australia Austria Azerbaijan
Bahamas Bahrain Bangladesh Barbados Belarus Belgium Belize Benin Bhutan Bolivia
Bosnia_and_Herzegovina Botswana Brazil Brunei Bulgaria Burkina_Faso Burundi Cambodia Cameroon
Canada Central_African_Republic Chad Chile Colombia Comoros Congo Costa_Rica Croatia Cuba Cyprus
Denmark Djibouti Dominica Dominican_Republic Ecuador Egypt El_Salvador Equatorial_Guinea Eritrea
England Estonia Ethiopia Fiji Finland France Gabon Gambia Georgia Germany Ghana Greece Grenada
Guatemala
Guinea Guinea-Bissau Guyana Haiti Honduras Hong_Kong Hungary Iceland India Indonesia Iran Iraq
Ireland Israel Italy Jamaica Japan Jordan Kazakhstan Kenya Kiribati Kosovo Kuwait Kyrgyzstan
Laos Latvia Lebanon Lesotho Liberia Libya Liechtenstein Lithuania Luxembourg Madagascar Malawi
Malaysia Maldives Mali Malta Marshall_Islands Mauritania Mauritius Mexico Micronesia Moldova
Monaco Mongolia Montenegro Morocco Mozambique Namibia Nauru Nepal New_Zealand Nicaragua Niger
Nigeria Norway Oman Pakistan Palau Palestine Panama Papua_New_Guinea Paraguay Peru Philippines
Poland Portugal Puerto_Rico Qatar Romania Rwanda Saint_Lucia Samoa San_Marino Saudi_Arabia
Scotland Senegal Serbia Seychelles Sierra_Leone Singapore Slovakia Slovenia Solomon_Islands Somalia
South_Africa South_Sudan Spain Sri_Lanka Sudan Suriname Sweden Switzerland Syria Taiwan
Tajikistan Tanzania Thailand Togo Tonga Trinidad_and_Tobago Tunisia Turkey Turkmenistan Tuvalu
Uganda Ukraine Uruguay Uzbekistan Vanuatu Venezuela Vietnam Wales Yemen Zambia Zimbabwe
"""


def _all_names() -> dict[str, str]:
    """Every name as written → its country's canonical name."""
    names = {name.replace("_", " "): name.replace("_", " ") for name in _NAMES.split()}
    for canonical, others in _ALIASES.items():
        names[canonical] = canonical
        names.update({other: canonical for other in others})
    return names


COUNTRY_OF = _all_names()
# Longest names first, so "South Sudan" is one country, not Sudan; "US" only in capitals and
# not in "US$" or before a digit (a currency or a code).
COUNTRY = re.compile(
    r"(?<![\w.$])(?:"
    + "|".join(re.escape(n) for n in sorted(COUNTRY_OF, key=len, reverse=True))
    + r")(?![\w$]|\.\w|\s?\d)"
)
