package io.clockwork.spring;

import io.clockwork.worker.WorkerListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.ResolvableType;

/**
 * The application's {@link WorkerListener} beans that hear the workers of one value type: a
 * {@code WorkerListener<T>} bean hears the listener methods whose value type is {@code T}, and a
 * {@code WorkerListener<Object>} bean hears every one. Generics are matched as Spring matches them for injection
 * (from the bean's declared type), so a {@code WorkerListener<Order>} never receives another type's jobs.
 * Thread-safe; asked once per worker, when the worker starts.
 */
@FunctionalInterface
public interface WorkerListenerBeans {

    /** No listener beans. */
    WorkerListenerBeans NONE = new WorkerListenerBeans() {
        @Override
        public <V> List<WorkerListener<V>> of(Class<V> valueType) {
            return List.of();
        }
    };

    /**
     * @param valueType a listener method's value type
     * @param <V>       that type
     * @return the beans that hear its workers, in bean order, each once
     */
    <V> List<WorkerListener<V>> of(Class<V> valueType);

    /**
     * The listener beans of a bean factory.
     *
     * @param beans the application's bean factory
     * @return the beans of the value types asked for
     */
    static WorkerListenerBeans from(BeanFactory beans) {
        Objects.requireNonNull(beans, "beans");
        return new WorkerListenerBeans() {
            @Override
            @SuppressWarnings("unchecked")
            public <V> List<WorkerListener<V>> of(Class<V> valueType) {
                Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
                List<WorkerListener<V>> found = new ArrayList<>();
                for (Class<?> t : valueType == Object.class ? List.of(Object.class)
                        : List.of(valueType, Object.class)) {
                    beans.getBeanProvider(ResolvableType.forClassWithGenerics(WorkerListener.class, t))
                            .orderedStream().forEach(l -> {
                                if (seen.add(l)) {
                                    found.add((WorkerListener<V>) l);
                                }
                            });
                }
                return found;
            }
        };
    }
}
