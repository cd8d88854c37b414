package io.clockwork.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Two writers of one {@link NodeTable} bucket: one inserts a node (a compare-and-set of the bucket's head); the
 * other removes the node at the head (under the bucket's lock, a compare-and-set of the head too, which an insertion
 * may have moved on), then inserts a node of the first one's key. Exactly one insertion wins, the removal happens,
 * and the bucket's chain holds the winner alone, whole, with the count matching it.
 *
 * <p>Result: whether the first insertion won, whether the removal removed, whether the second insertion won, and
 * whether the table after them holds exactly the winner (1) or not (0).
 */
@JCStressTest
@Outcome(id = "1, 1, 0, 1", expect = ACCEPTABLE, desc = "the first insertion won")
@Outcome(id = "0, 1, 1, 1", expect = ACCEPTABLE, desc = "the second insertion won")
@Outcome(expect = FORBIDDEN, desc = "both or neither insertion won, the removal was lost, or the chain is broken")
@State
public class BucketWriters {

    /** Keys 1 and 65 share bucket 1 of the table's first 64 buckets. */
    static final long KEY = 1;
    static final long NEIGHBOUR = 65;

    private final Table table = new Table();
    private final Node first = new Node(KEY);
    private final Node second = new Node(KEY);
    private final Node neighbour = new Node(NEIGHBOUR);

    public BucketWriters() {
        table.putIfAbsent(neighbour);
    }

    @Actor
    public void insertFirst(IIII_Result r) {
        r.r1 = table.putIfAbsent(first) == null ? 1 : 0;
    }

    @Actor
    public void removeThenInsert(IIII_Result r) {
        r.r2 = table.remove(neighbour) ? 1 : 0;
        r.r3 = table.putIfAbsent(second) == null ? 1 : 0;
    }

    @Arbiter
    public void check(IIII_Result r) {
        Node found = table.get(KEY, NodeTable.hash(KEY));
        Node winner = r.r1 == 1 ? first : second;
        boolean whole = found == winner && found.next == null
                && table.get(NEIGHBOUR, NodeTable.hash(NEIGHBOUR)) == null && table.size() == 1;
        r.r4 = whole ? 1 : 0;
    }

    /** A {@code long}-keyed node. */
    static final class Node {
        final long key;
        final int hash;
        volatile Node next;

        Node(long key) {
            this.key = key;
            this.hash = NodeTable.hash(key);
        }
    }

    /** The table of {@link Node}s. */
    static final class Table extends NodeTable<Node> {
        @Override
        protected int hashOf(Node node) {
            return node.hash;
        }

        @Override
        protected Node chainOf(Node node) {
            return node.next;
        }

        @Override
        protected void chain(Node node, Node next) {
            node.next = next;
        }

        @Override
        protected boolean hasKey(Node node, long key) {
            return node.key == key;
        }

        @Override
        protected boolean sameKey(Node node, Node other) {
            return node.key == other.key;
        }
    }
}
