//! The `Tool` methods of a tool whose work is all in `invoke`: an agent as a tool, a mounted MCP
//! tool, a tool built at run time.

/// Writes `definition` (the tool's field `definition`), `call` (an invocation without a call id)
/// and `invoke`, whose body reads `$this`, the arguments and the invocation; `$state` is the
/// toolbox state, which such a tool does not read.
macro_rules! invoked_tool {
    ($state:ty, |$this:ident, $arguments:ident, $invocation:ident| $body:block) => {
        fn definition(&self) -> &crate::tool::ToolDefinition {
            &self.definition
        }

        fn call<'a>(
            &'a self,
            arguments: &'a serde_json::Value,
            state: &'a $state,
        ) -> crate::tool::ToolFuture<'a> {
            let invocation = crate::tool::Invocation::new(&self.definition.name, "");
            self.invoke(arguments, state, &invocation)
        }

        #[inline]
        fn invoke<'a>(
            &'a $this,
            $arguments: &'a serde_json::Value,
            _: &'a $state,
            $invocation: &crate::tool::Invocation<'_>,
        ) -> crate::tool::ToolFuture<'a> $body
    };
}

pub(crate) use invoked_tool;
