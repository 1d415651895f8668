"""The data model every part of semtui shares.

Items are integer ids over one :class:`Vocabulary`; transactions are CSR arrays
(``indptr`` + a flat ``tokens`` array), never Python sets of strings.  Two families of
release have their own model: set-generalised transactions (:mod:`.transactions`, where a
negative token is a generalised item) and disassociated clusters (:mod:`.disassociated`).
"""

from semtui.model.disassociated import (
    Cluster,
    ClusterKey,
    DisassociatedData,
    DisassociationKey,
    JointCluster,
    JointClusterKey,
    RecordChunk,
)
from semtui.model.transactions import Token, TransactionBuilder, TransactionData, generalised_label, token_label
from semtui.model.vocabulary import Item, Vocabulary

Dataset = TransactionData | DisassociatedData

__all__ = [
    "Cluster",
    "ClusterKey",
    "Dataset",
    "DisassociatedData",
    "DisassociationKey",
    "Item",
    "JointCluster",
    "JointClusterKey",
    "RecordChunk",
    "Token",
    "TransactionBuilder",
    "TransactionData",
    "Vocabulary",
    "generalised_label",
    "token_label",
]
