package io.clockwork.spring;

import io.clockwork.worker.Job;
import java.lang.reflect.Method;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Finds {@link ClockworkListener} methods on beans as they are created and hands them to {@link ClockworkListeners}.
 * Thread-safe as Spring uses it. A method with the wrong shape fails the context at start-up, naming the method.
 */
public final class ClockworkListenerProcessor implements BeanPostProcessor, BeanFactoryAware {

    private BeanFactory beanFactory;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> target = AopUtils.getTargetClass(bean);
        Map<Method, ClockworkListener> found = MethodIntrospector.selectMethods(target,
                (MethodIntrospector.MetadataLookup<ClockworkListener>) m ->
                        AnnotatedElementUtils.findMergedAnnotation(m, ClockworkListener.class));
        if (found.isEmpty()) {
            return bean;
        }
        ClockworkListeners listeners = beanFactory.getBean(ClockworkListeners.class);
        found.forEach((method, annotation) -> listeners.register(endpoint(bean, method, annotation)));
        return bean;
    }

    static ClockworkListeners.Endpoint endpoint(Object bean, Method method, ClockworkListener annotation) {
        String where = method.getDeclaringClass().getName() + "." + method.getName();
        if (annotation.queue().isBlank()) {
            throw new IllegalStateException("@ClockworkListener on " + where + " needs a queue name");
        }
        if (method.getParameterCount() != 1) {
            throw new IllegalStateException("@ClockworkListener method " + where + " must take one parameter (the "
                    + "value, or a Job<T>), it takes " + method.getParameterCount());
        }
        if (annotation.concurrency() < 0) {
            throw new IllegalStateException("@ClockworkListener on " + where + ": concurrency must be at least 1 "
                    + "(or 0 for the default), was " + annotation.concurrency());
        }
        ResolvableType param = ResolvableType.forMethodParameter(method, 0);
        boolean takesJob = Job.class.isAssignableFrom(param.toClass());
        Class<?> valueType = takesJob ? param.as(Job.class).getGeneric(0).resolve() : param.toClass();
        if (valueType == null) {
            throw new IllegalStateException("@ClockworkListener method " + where + " takes a Job without its value "
                    + "type: declare it as Job<T>");
        }
        if (valueType.isPrimitive()) {
            throw new IllegalStateException("@ClockworkListener method " + where + " takes a primitive; use its "
                    + "wrapper type");
        }
        return new ClockworkListeners.Endpoint(bean, method, annotation, valueType, takesJob);
    }
}
