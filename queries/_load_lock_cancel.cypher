// Loader: give up waiting for the load lock: end this loader's waiting lock transaction, found
// by the metadata it was begun with ({paperkg_load_lock: token}).
SHOW TRANSACTIONS YIELD transactionId AS id, metaData
WHERE metaData.paperkg_load_lock = $token
TERMINATE TRANSACTIONS id
YIELD transactionId
RETURN transactionId
