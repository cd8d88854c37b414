package io.clockwork.zookeeper;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.ConcurrentModificationException;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The set {@link ExpiryQueue#poll()} returns: distinct elements in an array, hashed only when a caller asks for a
 * hash operation. Not thread-safe: owned by the caller of {@code poll()}, like any new collection.
 *
 * <h2>Why</h2>
 * The expiry thread of a ZooKeeper-style server only iterates what {@code poll()} returns. Building a
 * {@code HashSet} of an expiry storm (100,000 elements due at once) costs a node allocation and a {@code hashCode()}
 * per element, and {@code hashCode()} reads each element's header: a cache miss per element that iteration never
 * needs. So the set is the array of elements the poll collected (distinct by construction: a key has one live node,
 * expired at most once per poll), iterated and sized as is; the first {@link #contains} on more than a few elements
 * builds a {@code HashSet} index beside it, and a modification through {@link #add} or {@link #remove} turns the
 * set into that {@code HashSet} (ending iterations in progress, as it would for any set). Every {@code Set}
 * operation is supported.
 *
 * @param <E> the element type
 */
final class PolledSet<E> extends AbstractSet<E> {

    /** Up to this size, {@code contains} scans the array instead of hashing it. */
    private static final int SCAN_LIMIT = 8;

    private Object[] elems; // null once the set is hashed
    private int size;
    private HashSet<E> index; // the elements hashed: a lookup index over the array, then the set itself

    /**
     * Wraps an array of distinct, non-null elements; the set owns it from now on.
     *
     * @param elems the elements
     */
    PolledSet(Object[] elems) {
        this.elems = elems;
        this.size = elems.length;
    }

    @Override
    public int size() {
        return elems == null ? index.size() : size;
    }

    @Override
    public boolean contains(Object o) {
        if (elems != null && size <= SCAN_LIMIT) {
            for (int i = 0; i < size; i++) {
                if (Objects.equals(o, elems[i])) {
                    return true;
                }
            }
            return false;
        }
        return index().contains(o); // an index only: iterators over the array go on
    }

    @Override
    public boolean add(E e) {
        return hashed().add(e);
    }

    @Override
    public boolean remove(Object o) {
        return hashed().remove(o);
    }

    @Override
    public void clear() {
        if (elems == null) {
            index.clear();
        } else {
            Arrays.fill(elems, 0, size, null);
            size = 0;
            index = null;
        }
    }

    @Override
    public Iterator<E> iterator() {
        return elems == null ? index.iterator() : new ArrayIterator();
    }

    @SuppressWarnings("unchecked")
    private HashSet<E> index() {
        if (index == null) {
            HashSet<E> set = new HashSet<>(Math.max(16, (int) (size / .75f) + 1));
            for (int i = 0; i < size; i++) {
                set.add((E) elems[i]);
            }
            index = set;
        }
        return index;
    }

    /** Switches to the hashed form for a modification through the set (which ends iterations, as in any set). */
    private HashSet<E> hashed() {
        HashSet<E> set = index();
        elems = null;
        size = 0;
        return set;
    }

    /** Iterates the array; {@code remove()} moves the last element into the hole and visits it next. */
    private final class ArrayIterator implements Iterator<E> {
        private int cursor;
        private boolean canRemove;

        @Override
        public boolean hasNext() {
            checkNotHashed();
            return cursor < size;
        }

        @Override
        @SuppressWarnings("unchecked")
        public E next() {
            checkNotHashed();
            if (cursor >= size) {
                throw new NoSuchElementException();
            }
            canRemove = true;
            return (E) elems[cursor++];
        }

        @Override
        public void remove() {
            checkNotHashed();
            if (!canRemove) {
                throw new IllegalStateException();
            }
            canRemove = false;
            // Move the last element into the hole; it has not been visited, so visit it next.
            Object removed = elems[--cursor];
            size--;
            elems[cursor] = elems[size];
            elems[size] = null;
            if (index != null) {
                index.remove(removed);
            }
        }

        private void checkNotHashed() {
            if (elems == null) {
                throw new ConcurrentModificationException("the set was modified, not through this iterator");
            }
        }
    }
}
