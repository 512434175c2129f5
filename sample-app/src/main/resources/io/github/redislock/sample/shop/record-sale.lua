-- Writes one sale: the stock the caller computed and the order it accepted, both or neither.
-- It does not check the stock: the read-check-write around it is the caller's (locked or not).
-- KEYS[1]  the SKU's stock counter (string)
-- KEYS[2]  the SKU's order list (one order id per unit sold)
-- ARGV[1]  the new stock
-- ARGV[2]  the order id
-- returns  the number of orders recorded for the SKU, this one included
redis.call('SET', KEYS[1], ARGV[1])
return redis.call('RPUSH', KEYS[2], ARGV[2])
