// paperkg cypher, Ctrl-C: stop the transactions found by _shell_find_transactions.cypher (one
// that ended meanwhile is reported "Transaction not found", not an error).
TERMINATE TRANSACTIONS $ids
