// Loader: the load lock, run first in a transaction that stays open for the whole load and is
// rolled back at its end (so the node is never committed). MERGE under the unique constraint
// paperkg_load_lock locks the key, SET the node: a second load's transaction waits here until
// the first one's ends, and the server ends it when the loader dies and its connection closes.
// No other loader statement touches :PaperKGLoadLock, so the load's own writes never wait on it.
MERGE (l:PaperKGLoadLock {id: $name})
SET l.holder = $token
