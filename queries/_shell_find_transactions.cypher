// paperkg cypher, Ctrl-C: the server ids of the transactions the shell tagged with $token in
// their metadata (each statement gets its own token), to terminate them from a second session.
SHOW TRANSACTIONS YIELD transactionId, metaData
WHERE metaData.paperkg_shell = $token
RETURN transactionId
