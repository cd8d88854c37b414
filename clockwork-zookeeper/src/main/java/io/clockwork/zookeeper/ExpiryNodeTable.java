package io.clockwork.zookeeper;

import io.clockwork.engine.NodeTable;

/**
 * The table of {@link ExpiryNode}s, which keep their hash and link in fields of their own and compare their keys
 * themselves. Thread-safe.
 *
 * @param <N> the node type
 */
final class ExpiryNodeTable<N extends ExpiryNode> extends NodeTable<N> {

    @Override
    protected int hashOf(N node) {
        return node.hash;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected N chainOf(N node) {
        return (N) node.chain();
    }

    @Override
    protected void chain(N node, N next) {
        node.chain(next);
    }

    @Override
    protected boolean hasKey(N node, Object key) {
        return node.hasKey(key);
    }

    @Override
    protected boolean hasKey(N node, long key) {
        return node.hasKey(key);
    }

    @Override
    protected boolean sameKey(N node, N other) {
        return node.sameKey(other);
    }
}
