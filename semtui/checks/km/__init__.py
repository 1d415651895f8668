"""The independent witness of k^m-anonymity, for transactions (plain or set-generalised: a
generalised item is one item) and disassociated releases.

Shares no code with the anonymiser (:mod:`semtui.anonymize.disassociation`): only the data
model, the readers and the errors.

**k^m-anonymity** (disassociation-attack-alshuhail-shao Def. 1): every itemset of at most
``m`` items that occurs in the data occurs at least ``k`` times.  A *violation* is an
itemset of at most ``m`` items with support in ``[1, k)``; it is *minimal* when every proper
subset of it has support ``>= k``.  Every violation contains a minimal one, so the data is
k^m-anonymous exactly when there is no minimal violation; the report counts them all and
lists the first 20 (by size, then item ids).

**Counting** (:func:`km_violations`, over a CSR of integer ids, for any family that can
write its data as integer ids): level-wise, Apriori style, with no Python loop over
itemsets.  Level 1 is a ``bincount``.  Level j >= 2 counts every occurring extension of a
frequent (j-1)-itemset by one sparse product ``P.T @ X`` (``P``: transactions x frequent
(j-1)-itemsets, ``X``: transactions x frequent items), keeps the extensions by a larger
item, and prunes them with numpy (every (j-1)-subset must be frequent, looked up by
``searchsorted`` on sorted keys).  The survivors with support in ``[1, k)`` are the minimal
violations of size j; those with support ``>= k`` are the next frequent level, whose
incidence ``P`` is built by joining the previous one with the transactions' items.  The
products run over blocks of itemsets so that memory stays bounded.

**Disassociated releases** (:func:`check_disassociated`): every record chunk of every
cluster must be k^m-anonymous over its sub-records (all chunks are checked in one call of
:func:`km_violations`: an item of chunk g gets its own id per chunk, so no itemset crosses
chunks); inside a cluster, no item may be in two chunks (term chunk included).  With the
private key and the original: every item occurrence of the original is in exactly one place
of the release, the place the key says (a sub-record or a term-chunk term of the key's
transaction); a transaction is in one cluster; cluster sizes add up to the original; and
every term-chunk term has support < k among the original transactions of its cluster.

One module a job: :mod:`.violations` counts the minimal violations of a CSR dataset (the
core); :mod:`.transactions` and :mod:`.disassociated` check a release of each kind through
it; :mod:`.key` checks a disassociated release against its private key and the original;
:mod:`.report` is what ``semtui check km`` prints.
"""

from semtui.checks.km.disassociated import check_disassociated
from semtui.checks.km.report import FORMAT, KmReport
from semtui.checks.km.transactions import check_transactions
from semtui.checks.km.violations import LIMIT, MAX_INCIDENCE, KmViolations, km_violations

__all__ = [
    "FORMAT", "LIMIT", "MAX_INCIDENCE", "KmReport", "KmViolations", "check_disassociated", "check_transactions",
    "km_violations",
]
