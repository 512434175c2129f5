package io.github.redislock.core;

import java.util.Map;
import java.util.TreeMap;

/**
 * The fencing tokens of one replayed model trace: the model draws small counters where Redis draws
 * microseconds (or a counter of its own), so each model token stands for the Redis token first seen for
 * it, and the mapping must stay one-to-one and in the same order.
 */
final class ModelTokens {

    private final TreeMap<Integer, Long> tokens = new TreeMap<>();

    /** @return the Redis token model token {@code modelToken} stands for, or null when Redis never drew it */
    Long redis(int modelToken) {
        return tokens.get(modelToken);
    }

    /**
     * Model token {@code modelToken} is Redis' {@code redisToken} (0 on either side: no token drawn).
     *
     * @return the difference, described with {@code who} drew it, or null when the mapping holds
     */
    String map(int modelToken, long redisToken, String who) {
        if (modelToken == 0) {
            return redisToken == 0 ? null : who + " drew token " + redisToken + " where the model draws none";
        }
        if (redisToken == 0) {
            return who + " drew no token where the model draws " + modelToken;
        }
        Long known = tokens.get(modelToken);
        if (known != null) {
            return known == redisToken ? null : who + " gave token " + redisToken + " for model token " + modelToken + ", which was " + known;
        }
        Map.Entry<Integer, Long> below = tokens.lowerEntry(modelToken);
        Map.Entry<Integer, Long> above = tokens.higherEntry(modelToken);
        if (below != null && below.getValue() >= redisToken || above != null && above.getValue() <= redisToken) {
            return who + " drew token " + redisToken + " out of the model's order (model token " + modelToken + ", known " + tokens + ")";
        }
        tokens.put(modelToken, redisToken);
        return null;
    }
}
