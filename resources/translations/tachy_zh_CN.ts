<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About Tachy</source>
        <translation>关于 Tachy</translation>
    </message>
    <message>
        <source>Tachy: a chat client for local models that shows every wait.</source>
        <translation>Tachy：面向本地模型的聊天客户端，每一次等待都看得见。</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Local engine</source>
        <translation>本地引擎</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
</context>
<context>
    <name>ActionBar</name>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Continue with the other model</source>
        <translation>用另一个模型继续</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Edit question</source>
        <translation>编辑问题</translation>
    </message>
    <message>
        <source>Choose another server</source>
        <translation>选择其他服务器</translation>
    </message>
    <message>
        <source>Use the local model</source>
        <translation>使用本地模型</translation>
    </message>
    <message>
        <source>Keep waiting</source>
        <translation>继续等待</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>AddServerDialog</name>
    <message>
        <source>Add server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>自动检测</translation>
    </message>
    <message>
        <source>ollama</source>
        <translation>Ollama</translation>
    </message>
    <message>
        <source>openai</source>
        <translation>OpenAI 兼容</translation>
    </message>
    <message>
        <source>optional; stored in the system keyring</source>
        <translation>可选；保存在系统密钥环中</translation>
    </message>
    <message>
        <source>optional; http://host:29000</source>
        <translation>可选；http://host:29000</translation>
    </message>
    <message>
        <source>A router&apos;s own metrics (vllm-router&apos;s --prometheus-port): the Server tab then shows the requests each worker served, the routing decisions and each worker&apos;s circuit breaker.</source>
        <translation>路由器自身的指标（vLLM 路由器的指标端口，默认 29000）：服务器标签页随后会显示每个工作节点处理的请求、路由决策以及每个工作节点的熔断器状态。</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>名称(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;URL</source>
        <translation>网址(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;API</source>
        <translation>接口(&amp;A)</translation>
    </message>
    <message>
        <source>API &amp;key</source>
        <translation>接口密钥(&amp;K)</translation>
    </message>
    <message>
        <source>Router &amp;metrics</source>
        <translation>路由器指标(&amp;M)</translation>
    </message>
    <message>
        <source>Use the key for this session only</source>
        <translation>仅在本次会话中使用此密钥</translation>
    </message>
    <message>
        <source>{reason} The key was not saved anywhere. You can use it for this session only: Tachy forgets it when you quit.</source>
        <translation>{reason} 密钥没有保存在任何地方。你可以仅在本次会话中使用它：退出 Tachy 时会忘记它。</translation>
    </message>
    <message>
        <source>A server needs a name and a URL.</source>
        <translation>服务器需要名称和网址。</translation>
    </message>
    <message>
        <source>Router metrics: {sentence}</source>
        <translation>路由器指标：{sentence}</translation>
    </message>
</context>
<context>
    <name>AnswerFooter</name>
    <message>
        <source>{state} {s} s</source>
        <translation>{state} {s} 秒</translation>
    </message>
    <message>
        <source>{s} s to first token</source>
        <translation>首个词元 {s} 秒</translation>
    </message>
    <message>
        <source>{n} tokens in {parts} parts</source>
        <translation>{n} 个词元，分 {parts} 段</translation>
    </message>
    <message>
        <source>{n} tokens</source>
        <translation>{n} 个词元</translation>
    </message>
    <message>
        <source>question read while typing: {tokens} tokens</source>
        <translation>输入时已读取问题：{tokens} 个词元</translation>
    </message>
    <message>
        <source>question read while typing: {tokens} tokens, saved about {s} s</source>
        <translation>输入时已读取问题：{tokens} 个词元，节省约 {s} 秒</translation>
    </message>
    <message>
        <source>QoE {q}</source>
        <translation>QoE {q}</translation>
    </message>
    <message>
        <source>{n} tok/s average</source>
        <translation>平均 {n} 词元/秒</translation>
    </message>
</context>
<context>
    <name>ApprovalCard</name>
    <message>
        <source>Allow once</source>
        <translation>允许一次</translation>
    </message>
    <message>
        <source>Always allow this tool</source>
        <translation>始终允许此工具</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Run the tool {tool} of {server}?</source>
        <translation>运行 {server} 的工具 {tool}？</translation>
    </message>
    <message>
        <source>The model is writing a call to {tool}…</source>
        <translation>模型正在编写对 {tool} 的调用…</translation>
    </message>
    <message>
        <source>Its arguments are still arriving.</source>
        <translation>其参数仍在传输中。</translation>
    </message>
</context>
<context>
    <name>AttachmentTray</name>
    <message>
        <source>Attach image…</source>
        <translation>附加图片…</translation>
    </message>
    <message>
        <source>Attach image</source>
        <translation>附加图片</translation>
    </message>
    <message>
        <source>Image problem</source>
        <translation>图片问题</translation>
    </message>
    <message>
        <source>Attach an image for the model to see (or paste one, or drop it here)</source>
        <translation>附加一张图片给模型看（也可以粘贴或拖放到这里）</translation>
    </message>
    <message>
        <source>pasted image</source>
        <translation>粘贴的图片</translation>
    </message>
    <message>
        <source>{name}: click to view it full size</source>
        <translation>{name}：点击查看原图</translation>
    </message>
    <message>
        <source>Image {name}</source>
        <translation>图片 {name}</translation>
    </message>
    <message>
        <source>Remove image {name}</source>
        <translation>移除图片 {name}</translation>
    </message>
    <message>
        <source>Remove this image</source>
        <translation>移除这张图片</translation>
    </message>
    <message>
        <source>Use a model that can see</source>
        <translation>改用能识图的模型</translation>
    </message>
    <message>
        <source>Use {model}, which can see</source>
        <translation>改用能识图的 {model}</translation>
    </message>
</context>
<context>
    <name>AttachmentsController</name>
    <message>
        <source>pasted image</source>
        <translation>粘贴的图片</translation>
    </message>
    <message>
        <source>Attach images</source>
        <translation>附加图片</translation>
    </message>
    <message>
        <source>Images (*.png *.jpg *.jpeg *.webp *.gif)</source>
        <translation>图片 (*.png *.jpg *.jpeg *.webp *.gif)</translation>
    </message>
</context>
<context>
    <name>Cascade</name>
    <message>
        <source>fast</source>
        <translation>快速</translation>
    </message>
    <message>
        <source>strong</source>
        <translation>强大</translation>
    </message>
    <message>
        <source>{tier} · {model}</source>
        <translation>{tier} · {model}</translation>
    </message>
    <message>
        <source>The {failed} model ({failed_model}) failed before answering; the {answered} model ({model}) answered. {error}</source>
        <translation>{failed}模型（{failed_model}）在回答前出错；改由{answered}模型（{model}）回答。{error}</translation>
    </message>
    <message>
        <source>asks to prove, derive, explain or compare</source>
        <translation>要求证明、推导、解释或比较</translation>
    </message>
    <message>
        <source>code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>maths</source>
        <translation>数学</translation>
    </message>
    <message>
        <source>translation</source>
        <translation>翻译</translation>
    </message>
    <message>
        <source>several questions</source>
        <translation>多个问题</translation>
    </message>
    <message>
        <source>a long message</source>
        <translation>长消息</translation>
    </message>
    <message>
        <source>a short everyday question</source>
        <translation>简短的日常问题</translation>
    </message>
    <message>
        <source>classifier out of budget, rules decided: {reason}</source>
        <translation>分类器超出时间预算，由规则决定：{reason}</translation>
    </message>
    <message>
        <source>classifier failed, rules decided: {reason}</source>
        <translation>分类器出错，由规则决定：{reason}</translation>
    </message>
    <message>
        <source>no classifier answer, rules decided: {reason}</source>
        <translation>分类器未给出答复，由规则决定：{reason}</translation>
    </message>
    <message>
        <source>the {tier} model failed before answering</source>
        <translation>{tier}模型在回答前出错</translation>
    </message>
    <message>
        <source>asked for by you</source>
        <translation>由你指定</translation>
    </message>
    <message>
        <source>the fast model&apos;s classification</source>
        <translation>快速模型的分类</translation>
    </message>
    <message>
        <source>{route} · attempt {n}</source>
        <translation>{route} · 第 {n} 次尝试</translation>
    </message>
</context>
<context>
    <name>CascadeController</name>
    <message>
        <source>Ask the strong model</source>
        <translation>向强大模型提问</translation>
    </message>
    <message>
        <source>Re-ask with the other model</source>
        <translation>用另一个模型重新提问</translation>
    </message>
    <message>
        <source>Choose a cascade first: a fast and a strong model.</source>
        <translation>请先选择级联：一个快速模型和一个强大模型。</translation>
    </message>
    <message numerus="yes">
        <source>Earlier turns summarised: %Ln message(s) are sent as a summary.</source>
        <translation>
            <numerusform>较早的对话已总结：%Ln 条消息以摘要形式发送。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>CascadeMenu</name>
    <message>
        <source>&amp;Cascade</source>
        <translation>级联(&amp;C)</translation>
    </message>
    <message>
        <source>Use this model as the fast one</source>
        <translation>将此模型设为快速模型</translation>
    </message>
    <message>
        <source>Use this model as the strong one</source>
        <translation>将此模型设为强大模型</translation>
    </message>
    <message>
        <source>Use the cascade</source>
        <translation>使用级联</translation>
    </message>
    <message>
        <source>Summarise long conversations</source>
        <translation>总结长对话</translation>
    </message>
    <message>
        <source>Choose a server and a model first.</source>
        <translation>请先选择服务器和模型。</translation>
    </message>
    <message>
        <source>Fast model: {model}</source>
        <translation>快速模型：{model}</translation>
    </message>
    <message>
        <source>Strong model: {model}</source>
        <translation>强大模型：{model}</translation>
    </message>
    <message>
        <source>Let the fast model choose (within 150 ms, else the rules)</source>
        <translation>让快速模型选择（限 150 毫秒，否则按规则）</translation>
    </message>
</context>
<context>
    <name>ChatPage</name>
    <message>
        <source>This answer was stopped; the text so far is kept.</source>
        <translation>此回答已停止；已生成的文字已保留。</translation>
    </message>
    <message>
        <source>This answer was interrupted; the text so far is kept.</source>
        <translation>此回答被中断；已生成的文字已保留。</translation>
    </message>
    <message>
        <source>This answer failed.</source>
        <translation>此回答失败。</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Chat</source>
        <translation>聊天</translation>
    </message>
    <message>
        <source>Copy code block</source>
        <translation>复制代码块</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>Hide thinking</source>
        <translation>隐藏思考</translation>
    </message>
    <message>
        <source>Show thinking</source>
        <translation>显示思考</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Answer</source>
        <translation>回答</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Timing</source>
        <translation>计时</translation>
    </message>
    <message>
        <source>Show summary</source>
        <translation>显示摘要</translation>
    </message>
    <message>
        <source>Hide summary</source>
        <translation>隐藏摘要</translation>
    </message>
    <message>
        <source>code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Ask anything — Enter sends, Shift+Enter for a new line</source>
        <translation>随便问——Enter 发送，Shift+Enter 换行</translation>
    </message>
</context>
<context>
    <name>ComposerChips</name>
    <message>
        <source>Searching your documents</source>
        <translation>正在搜索你的文档</translation>
    </message>
    <message>
        <source>Your documents are searched for each question (Ctrl+K). Click to stop.</source>
        <translation>每个问题都会搜索你的文档（Ctrl+K）。点击停止。</translation>
    </message>
    <message>
        <source>Cascade</source>
        <translation>级联</translation>
    </message>
    <message>
        <source>The cascade chooses the fast or the strong model. Click to stop.</source>
        <translation>级联会选择快速模型或强模型。点击停止。</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>The model may ask to use this conversation&apos;s tools; you approve each call. Click to stop offering them here.</source>
        <translation>模型可以请求使用此对话的工具，每次调用都需您批准。点击可在此对话中停止提供工具。</translation>
    </message>
    <message>
        <source>Editing your question</source>
        <translation>正在编辑你的问题</translation>
    </message>
    <message>
        <source>Enter sends the edit as a new version of the question. Click to ask it as a new question instead.</source>
        <translation>按 Enter 将修改作为该问题的新版本发送。点击则改为作为新问题提问。</translation>
    </message>
</context>
<context>
    <name>ConversationController</name>
    <message>
        <source>the conversation</source>
        <translation>该对话</translation>
    </message>
    <message>
        <source>Deleted “{title}”.</source>
        <translation>已删除“{title}”。</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Export conversation</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <source>Exported to {path}</source>
        <translation>已导出到 {path}</translation>
    </message>
</context>
<context>
    <name>ConversationPanel</name>
    <message>
        <source>New conversation</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Search (Ctrl+F)</source>
        <translation>搜索 (Ctrl+F)</translation>
    </message>
    <message>
        <source>New</source>
        <translation>新建</translation>
    </message>
    <message>
        <source>New conversation (Ctrl+N)</source>
        <translation>新对话 (Ctrl+N)</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话列表</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <source>Export as Markdown…</source>
        <translation>导出为 Markdown…</translation>
    </message>
    <message>
        <source>Export as JSON…</source>
        <translation>导出为 JSON…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
</context>
<context>
    <name>DemoLive</name>
    <message>
        <source>chaos</source>
        <translation>混乱</translation>
    </message>
    <message>
        <source>cold-then-stall</source>
        <translation>冷启动后卡顿</translation>
    </message>
    <message>
        <source>cold-then-warm</source>
        <translation>先冷后热</translation>
    </message>
    <message>
        <source>demo-tiers</source>
        <translation>演示四档</translation>
    </message>
    <message>
        <source>fast-down-strong-up</source>
        <translation>快模型宕机、强模型在线</translation>
    </message>
    <message>
        <source>first-byte-timeout</source>
        <translation>首字节超时</translation>
    </message>
    <message>
        <source>llamacpp-4-slots</source>
        <translation>llama.cpp 四槽位</translation>
    </message>
    <message>
        <source>reset-then-continue</source>
        <translation>中途断开后继续</translation>
    </message>
    <message>
        <source>retry-after-503</source>
        <translation>503 后重试</translation>
    </message>
    <message>
        <source>stall-then-recovery</source>
        <translation>卡顿后恢复</translation>
    </message>
    <message>
        <source>thinking-model</source>
        <translation>思考模型</translation>
    </message>
    <message>
        <source>unknown-model</source>
        <translation>未知模型</translation>
    </message>
    <message>
        <source>Scenario files</source>
        <translation>场景文件</translation>
    </message>
    <message>
        <source>Next answers</source>
        <translation>接下来的回答</translation>
    </message>
    <message>
        <source>Instant (about 30 ms)</source>
        <translation>即时（约 30 ms）</translation>
    </message>
    <message>
        <source>Fast (about 180 ms)</source>
        <translation>快速（约 180 ms）</translation>
    </message>
    <message>
        <source>Typing (about 600 ms)</source>
        <translation>打字速度（约 600 ms）</translation>
    </message>
    <message>
        <source>Slow (about 2.5 s)</source>
        <translation>缓慢（约 2.5 秒）</translation>
    </message>
    <message>
        <source>Server busy (503)</source>
        <translation>服务器繁忙（503）</translation>
    </message>
    <message>
        <source>Cut off mid-answer</source>
        <translation>回答中途断开</translation>
    </message>
    <message>
        <source>Pause for 5 s mid-answer</source>
        <translation>回答中途暂停 5 秒</translation>
    </message>
    <message>
        <source>No fault</source>
        <translation>无故障</translation>
    </message>
    <message>
        <source>As the scenario says</source>
        <translation>按场景设定</translation>
    </message>
</context>
<context>
    <name>DemoMenu</name>
    <message>
        <source>Instant reply (under 100 ms)</source>
        <translation>即时回复（100 毫秒以内）</translation>
    </message>
    <message>
        <source>Fast reply (under 300 ms)</source>
        <translation>快速回复（300 毫秒以内）</translation>
    </message>
    <message>
        <source>Typing indicator (under 1 s)</source>
        <translation>输入提示（1 秒以内）</translation>
    </message>
    <message>
        <source>Slow reply (over 1 s)</source>
        <translation>慢速回复（超过 1 秒）</translation>
    </message>
    <message>
        <source>Model loads first (cold start)</source>
        <translation>先加载模型（冷启动）</translation>
    </message>
    <message>
        <source>Model thinks before answering</source>
        <translation>模型先思考再回答</translation>
    </message>
    <message>
        <source>Unreliable server</source>
        <translation>不稳定的服务器</translation>
    </message>
    <message>
        <source>Answer pauses midway</source>
        <translation>回答中途停顿</translation>
    </message>
    <message>
        <source>Connection drops midway</source>
        <translation>连接中途断开</translation>
    </message>
    <message>
        <source>Long question, reading progress shown</source>
        <translation>长问题，显示读取进度</translation>
    </message>
    <message>
        <source>Busy server, answers interleaved</source>
        <translation>繁忙的服务器，回答交错进行</translation>
    </message>
    <message>
        <source>Busy server, answers in fixed batches</source>
        <translation>繁忙的服务器，回答按固定批次</translation>
    </message>
    <message>
        <source>Overloaded server (busy errors)</source>
        <translation>过载的服务器（繁忙错误）</translation>
    </message>
    <message>
        <source>Start latency lab</source>
        <translation>启动延迟实验室</translation>
    </message>
    <message>
        <source>Stop latency lab</source>
        <translation>停止延迟实验室</translation>
    </message>
    <message>
        <source>Steady answer (6 tokens a second)</source>
        <translation>平稳的回答（每秒 6 个词元）</translation>
    </message>
    <message>
        <source>Bursty answer (same rate, in bursts)</source>
        <translation>突发的回答（同样的速率，成批到达）</translation>
    </message>
</context>
<context>
    <name>DemoRaces</name>
    <message>
        <source>Demo races</source>
        <translation>演示竞速</translation>
    </message>
    <message>
        <source>Local engine: cold against warm</source>
        <translation>本地引擎：冷启动对比预热</translation>
    </message>
    <message>
        <source>Lab: fast against strong</source>
        <translation>实验室：快速模型对比强大模型</translation>
    </message>
    <message>
        <source>Local engine, cold</source>
        <translation>本地引擎，冷</translation>
    </message>
    <message>
        <source>Local engine, warm</source>
        <translation>本地引擎，已预热</translation>
    </message>
    <message>
        <source>Lab, fast model</source>
        <translation>实验室，快速模型</translation>
    </message>
    <message>
        <source>Lab, strong model</source>
        <translation>实验室，强大模型</translation>
    </message>
    <message>
        <source>Why is the sky blue?</source>
        <translation>天空为什么是蓝色的？</translation>
    </message>
    <message>
        <source>Lab: steady against bursty (QoE)</source>
        <translation>实验室：平稳对突发（QoE）</translation>
    </message>
    <message>
        <source>Lab, steady answer</source>
        <translation>实验室，平稳的回答</translation>
    </message>
    <message>
        <source>Lab, bursty answer</source>
        <translation>实验室，突发的回答</translation>
    </message>
</context>
<context>
    <name>DemoTools</name>
    <message>
        <source>Fast tool (answers at once)</source>
        <translation>快速工具（立即回答）</translation>
    </message>
    <message>
        <source>Use add for 2 and 3.</source>
        <translation>用 add 计算 2 和 3。</translation>
    </message>
    <message>
        <source>Slow tool (3 s)</source>
        <translation>慢速工具（3 秒）</translation>
    </message>
    <message>
        <source>Use slow_count for 3 seconds in 10 steps.</source>
        <translation>用 slow_count 在 3 秒内分 10 步计数。</translation>
    </message>
    <message>
        <source>Failing tool (its error goes to the model)</source>
        <translation>出错的工具（错误交给模型）</translation>
    </message>
    <message>
        <source>Use fail to show how a tool&apos;s error reaches the model.</source>
        <translation>用 fail 演示工具的错误如何交给模型。</translation>
    </message>
    <message>
        <source>Tool that hangs (press Stop)</source>
        <translation>卡住的工具（请按停止）</translation>
    </message>
    <message>
        <source>Use hang, then press Stop.</source>
        <translation>用 hang，然后按停止。</translation>
    </message>
    <message>
        <source>Parallel calls (a fast and a slow tool)</source>
        <translation>并行调用（一个快速、一个慢速工具）</translation>
    </message>
    <message>
        <source>Use add for 2 and 3 and slow_count for 2 seconds in 4 steps.</source>
        <translation>用 add 计算 2 和 3，同时用 slow_count 在 2 秒内分 4 步计数。</translation>
    </message>
    <message>
        <source>Approval wait (not counted as latency)</source>
        <translation>等待批准（不计入延迟）</translation>
    </message>
    <message>
        <source>Use add for 4 and 5.</source>
        <translation>用 add 计算 4 和 5。</translation>
    </message>
    <message>
        <source>Tool turns</source>
        <translation>工具调用回合</translation>
    </message>
</context>
<context>
    <name>Doctor</name>
    <message>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>FAIL</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>damaged copies</source>
        <translation>损坏的副本</translation>
    </message>
    <message>
        <source>database</source>
        <translation>数据库</translation>
    </message>
    <message>
        <source>database schema</source>
        <translation>数据库结构</translation>
    </message>
    <message>
        <source>database size</source>
        <translation>数据库大小</translation>
    </message>
    <message>
        <source>keyring</source>
        <translation>密钥环</translation>
    </message>
    <message>
        <source>display</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>local engine</source>
        <translation>本地引擎</translation>
    </message>
    <message>
        <source>model file</source>
        <translation>模型文件</translation>
    </message>
    <message>
        <source>engine start</source>
        <translation>引擎启动</translation>
    </message>
    <message>
        <source>engine answer</source>
        <translation>引擎回答</translation>
    </message>
    <message>
        <source>port {port} ({server})</source>
        <translation>端口 {port}（{server}）</translation>
    </message>
    <message>
        <source>server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>last answer</source>
        <translation>上一个回答</translation>
    </message>
    <message>
        <source>none yet since Tachy started</source>
        <translation>Tachy 启动以来还没有</translation>
    </message>
    <message>
        <source>kept beside the history: {names}</source>
        <translation>保存在历史记录旁：{names}</translation>
    </message>
    <message>
        <source>not checked: the data folder cannot be used (see above)</source>
        <translation>未检查：数据文件夹无法使用（见上文）</translation>
    </message>
    <message>
        <source>no history yet at {path}; Tachy makes it at start</source>
        <translation>{path} 处还没有历史记录；Tachy 会在启动时创建</translation>
    </message>
    <message>
        <source>version {version}, written by a newer Tachy (this one knows {known})</source>
        <translation>版本 {version}，由更新版本的 Tachy 写入（此版本只认识到 {known}）</translation>
    </message>
    <message>
        <source>no usable system keyring ({name})</source>
        <translation>没有可用的系统密钥环（{name}）</translation>
    </message>
    <message>
        <source>no display (neither DISPLAY nor WAYLAND_DISPLAY is set)</source>
        <translation>没有显示器（DISPLAY 和 WAYLAND_DISPLAY 都未设置）</translation>
    </message>
    <message>
        <source>Qt did not start within 30 s</source>
        <translation>Qt 在 30 秒内没有启动</translation>
    </message>
    <message>
        <source>Qt platform plugin &apos;{name}&apos; loads</source>
        <translation>Qt 平台插件“{name}”可以加载</translation>
    </message>
    <message>
        <source>Qt&apos;s platform plugin does not load: {output}</source>
        <translation>Qt 平台插件无法加载：{output}</translation>
    </message>
    <message>
        <source>the local engine (the `local` extra) is not installed</source>
        <translation>未安装本地引擎（`local` 附加组件）</translation>
    </message>
    <message>
        <source>installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <source>skipped (--no-engine)</source>
        <translation>已跳过（--no-engine）</translation>
    </message>
    <message>
        <source>answered its health check in {seconds} s</source>
        <translation>{seconds} 秒内通过了健康检查</translation>
    </message>
    <message>
        <source>no LLM server answering</source>
        <translation>没有 LLM 服务器应答</translation>
    </message>
    <message>
        <source>make it yourself, or set TACHY_DATA_DIR to a folder you can write.</source>
        <translation>请自己创建它，或把 TACHY_DATA_DIR 设为你可以写入的文件夹。</translation>
    </message>
    <message>
        <source>move the file {folder} away (keep it if it matters), or set TACHY_DATA_DIR.</source>
        <translation>请把文件 {folder} 移走（如果它重要就保留好），或设置 TACHY_DATA_DIR。</translation>
    </message>
    <message>
        <source>free some space on the disk that holds {folder}.</source>
        <translation>请在存放 {folder} 的磁盘上腾出一些空间。</translation>
    </message>
    <message>
        <source>mount that disk read-write, or set TACHY_DATA_DIR to a writable folder.</source>
        <translation>请以读写方式挂载该磁盘，或把 TACHY_DATA_DIR 设为可写的文件夹。</translation>
    </message>
    <message>
        <source>give yourself write access (chmod u+rwx {folder}) or set TACHY_DATA_DIR.</source>
        <translation>请给自己写入权限（chmod u+rwx {folder}），或设置 TACHY_DATA_DIR。</translation>
    </message>
    <message>
        <source>start tachy: it keeps the damaged file beside it (renamed with the date) and recovers every readable conversation into a new history.</source>
        <translation>请启动 Tachy：它会把损坏的文件保留在旁边（以日期重命名），并把每个可读的对话恢复到新的历史记录中。</translation>
    </message>
    <message>
        <source>update Tachy; until then the history is shown read-only.</source>
        <translation>请更新 Tachy；在此之前历史记录以只读方式显示。</translation>
    </message>
    <message>
        <source>install and unlock a keyring (GNOME Keyring, KWallet, macOS Keychain, Windows Credential Manager); until then an API key is used for the session only.</source>
        <translation>请安装并解锁一个密钥环（GNOME Keyring、KWallet、macOS Keychain、Windows Credential Manager）；在此之前 API 密钥只在本次会话中使用。</translation>
    </message>
    <message>
        <source>start Tachy from a desktop session (or QT_QPA_PLATFORM=offscreen for tests).</source>
        <translation>请在桌面会话中启动 Tachy（测试时可用 QT_QPA_PLATFORM=offscreen）。</translation>
    </message>
    <message>
        <source>check the display server.</source>
        <translation>请检查显示服务器。</translation>
    </message>
    <message>
        <source>install the libraries Qt needs (Debian/Ubuntu: sudo apt install libxcb-cursor0 libxkbcommon-x11-0 libegl1), or try QT_QPA_PLATFORM=wayland or xcb.</source>
        <translation>请安装 Qt 需要的库（Debian/Ubuntu：sudo apt install libxcb-cursor0 libxkbcommon-x11-0 libegl1），或试试 QT_QPA_PLATFORM=wayland 或 xcb。</translation>
    </message>
    <message>
        <source>install it: {command}</source>
        <translation>请安装：{command}</translation>
    </message>
    <message>
        <source>see the lines above; run `tachy serve-local` to watch</source>
        <translation>请看上面几行；运行 `tachy serve-local` 观察</translation>
    </message>
    <message>
        <source>run `tachy serve-local` to see why</source>
        <translation>运行 `tachy serve-local` 查看原因</translation>
    </message>
    <message>
        <source>{folder} does not exist yet; Tachy makes it at start</source>
        <translation>{folder} 还不存在；Tachy 会在启动时创建</translation>
    </message>
    <message>
        <source>{folder} does not exist and cannot be made</source>
        <translation>{folder} 不存在，也无法创建</translation>
    </message>
    <message>
        <source>{folder} is a file, not a folder</source>
        <translation>{folder} 是文件，不是文件夹</translation>
    </message>
    <message>
        <source>{path} is damaged ({reason})</source>
        <translation>{path} 已损坏（{reason}）</translation>
    </message>
    <message>
        <source>{path}: integrity ok, schema {version} of {known}</source>
        <translation>{path}：完整性正常，结构版本 {version}/{known}</translation>
    </message>
    <message>
        <source>{size} MB: delete old conversations to shrink it</source>
        <translation>{size} MB：删除旧对话可以让它变小</translation>
    </message>
    <message>
        <source>{name} refused a read: {error}</source>
        <translation>{name} 拒绝了读取：{error}</translation>
    </message>
    <message>
        <source>{count} characters in {seconds} s</source>
        <translation>{seconds} 秒内回答了 {count} 个字符</translation>
    </message>
    <message>
        <source>{api} server with {models} model(s) at {url}</source>
        <translation>{url} 上的 {api} 服务器，有 {models} 个模型</translation>
    </message>
    <message>
        <source>{model} at {server}: first token in {ms} ms</source>
        <translation>{server} 上的 {model}：首个词元用时 {ms} 毫秒</translation>
    </message>
    <message>
        <source>{model} at {server}: no first token</source>
        <translation>{server} 上的 {model}：没有首个词元</translation>
    </message>
    <message>
        <source>{folder} (writable)</source>
        <translation>{folder}（可写）</translation>
    </message>
    <message>
        <source>{path} ({size} MB)</source>
        <translation>{path}（{size} MB）</translation>
    </message>
    <message>
        <source>{size} MB</source>
        <translation>{size} MB</translation>
    </message>
    <message>
        <source>{status}  {name}: {detail}</source>
        <translation>{status}  {name}：{detail}</translation>
    </message>
    <message>
        <source>Fix: {fix}</source>
        <translation>修复方法：{fix}</translation>
    </message>
</context>
<context>
    <name>DoctorDialog</name>
    <message>
        <source>Check this machine</source>
        <translation>检查本机</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>Check report</source>
        <translation>检查报告</translation>
    </message>
    <message>
        <source>The checks stopped: {error}</source>
        <translation>检查中止：{error}</translation>
    </message>
    <message numerus="yes">
        <source>%Ln check(s) failed. Each says how to fix it.</source>
        <translation>
            <numerusform>未通过的检查：%Ln 项。每项都说明了修复方法。</numerusform>
        </translation>
    </message>
    <message>
        <source>All checks passed.</source>
        <translation>所有检查均已通过。</translation>
    </message>
</context>
<context>
    <name>EditServerDialog</name>
    <message>
        <source>Edit server</source>
        <translation>编辑服务器</translation>
    </message>
    <message>
        <source>leave empty to keep the saved key</source>
        <translation>留空则保留已保存的密钥</translation>
    </message>
    <message>
        <source>Remove this server…</source>
        <translation>移除此服务器…</translation>
    </message>
    <message>
        <source>Remove this server</source>
        <translation>移除此服务器</translation>
    </message>
</context>
<context>
    <name>EngineMenu</name>
    <message>
        <source>&amp;Engine</source>
        <translation>引擎(&amp;E)</translation>
    </message>
    <message>
        <source>Speculative decoding</source>
        <translation>推测解码</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Repeats in the text (simple)</source>
        <translation>文本中的重复（简单）</translation>
    </message>
    <message>
        <source>Repeats in the text (map)</source>
        <translation>文本中的重复（映射）</translation>
    </message>
    <message>
        <source>Repeats in the text (long runs)</source>
        <translation>文本中的重复（长片段）</translation>
    </message>
    <message>
        <source>Repeats seen before (cache)</source>
        <translation>以前见过的重复（缓存）</translation>
    </message>
    <message>
        <source>Restarting the local model with the new setting…</source>
        <translation>正在以新设置重启本地模型…</translation>
    </message>
    <message>
        <source>The local model uses it from its next start.</source>
        <translation>本地模型将在下次启动时使用此设置。</translation>
    </message>
</context>
<context>
    <name>ErrorParts</name>
    <message>
        <source>the connection was closed</source>
        <translation>连接已关闭</translation>
    </message>
    <message>
        <source>the server closed the stream before it finished</source>
        <translation>服务器在回答结束前关闭了数据流</translation>
    </message>
    <message>
        <source>no answer within {seconds} s</source>
        <translation>{seconds} 秒内没有应答</translation>
    </message>
    <message>
        <source>no word for {seconds} s</source>
        <translation>{seconds} 秒内没有任何消息</translation>
    </message>
    <message>
        <source>the server redirected the request (HTTP {status}) to {location}, and Tachy does not follow redirects, so nothing was sent there. Use the final address as the URL</source>
        <translation>服务器把请求重定向（HTTP {status}）到 {location}，而 Tachy 不跟随重定向，因此没有向那里发送任何内容。请把最终地址用作 URL</translation>
    </message>
    <message>
        <source>the server redirected the request (HTTP {status}), and Tachy does not follow redirects, so nothing was sent there. Use the final address as the URL</source>
        <translation>服务器重定向了请求（HTTP {status}），而 Tachy 不跟随重定向，因此没有向那里发送任何内容。请把最终地址用作 URL</translation>
    </message>
    <message>
        <source>the server sent a web page (HTML) instead of a model stream</source>
        <translation>服务器发送的是网页（HTML），而不是模型数据流</translation>
    </message>
    <message>
        <source>the server sent plain JSON instead of an event stream</source>
        <translation>服务器发送的是普通 JSON，而不是事件流</translation>
    </message>
    <message>
        <source>a line is not a server-sent event: {snippet}</source>
        <translation>有一行不是 server-sent 事件：{snippet}</translation>
    </message>
    <message>
        <source>a line of the stream is longer than {size} MiB</source>
        <translation>数据流中有一行超过 {size} MiB</translation>
    </message>
    <message>
        <source>a line of the stream is not a JSON object: {snippet}</source>
        <translation>数据流中有一行不是 JSON 对象：{snippet}</translation>
    </message>
    <message>
        <source>a line of the stream is not JSON: {snippet}</source>
        <translation>数据流中有一行不是 JSON：{snippet}</translation>
    </message>
    <message>
        <source>{url} did not answer JSON: {snippet}</source>
        <translation>{url} 的回复不是 JSON：{snippet}</translation>
    </message>
    <message>
        <source>{what} is not a JSON object</source>
        <translation>{what} 不是 JSON 对象</translation>
    </message>
    <message>
        <source>invalid port: {port}</source>
        <translation>端口无效：{port}</translation>
    </message>
    <message>
        <source>invalid ipv4 address: {address}</source>
        <translation>IPv4 地址无效：{address}</translation>
    </message>
    <message>
        <source>invalid ipv6 address: {address}</source>
        <translation>IPv6 地址无效：{address}</translation>
    </message>
    <message>
        <source>invalid non-printable ascii character in url, {character} at position {position}</source>
        <translation>URL 中第 {position} 个位置有无效的不可打印字符 {character}</translation>
    </message>
    <message>
        <source>schema {version}; this one knows {known}</source>
        <translation>结构版本 {version}；此版本只认识到 {known}</translation>
    </message>
    <message>
        <source>{folder} is a file, not a folder</source>
        <translation>{folder} 是文件，不是文件夹</translation>
    </message>
    <message>
        <source>HTTP 404 ({message})</source>
        <translation>HTTP 404（{message}）</translation>
    </message>
    <message>
        <source>the reply was not a chat answer</source>
        <translation>回复不是聊天回答</translation>
    </message>
    <message>
        <source>nothing is listening on its port</source>
        <translation>它的端口上没有程序在监听</translation>
    </message>
    <message>
        <source>no connection could be made</source>
        <translation>无法建立连接</translation>
    </message>
    <message>
        <source>the connection to the server was cut</source>
        <translation>与服务器的连接被切断</translation>
    </message>
    <message>
        <source>its host name was not found</source>
        <translation>找不到它的主机名</translation>
    </message>
    <message>
        <source>the network cannot reach it</source>
        <translation>网络无法到达它</translation>
    </message>
    <message>
        <source>no answer in time</source>
        <translation>没有及时回复</translation>
    </message>
    <message>
        <source>the server closed the connection without answering</source>
        <translation>服务器没有回复就关闭了连接</translation>
    </message>
    <message>
        <source>the server closed the connection before the answer was complete</source>
        <translation>服务器在回答完成之前关闭了连接</translation>
    </message>
    <message>
        <source>the server&apos;s answer broke the HTTP rules</source>
        <translation>服务器的回复不符合 HTTP 规则</translation>
    </message>
    <message>
        <source>/api/pull sent a line that is not JSON: {snippet}</source>
        <translation>/api/pull 发送了一行不是 JSON 的内容：{snippet}</translation>
    </message>
    <message>
        <source>/api/pull sent a line that is not a JSON object</source>
        <translation>/api/pull 发送了一行不是 JSON 对象的内容</translation>
    </message>
    <message>
        <source>the server at {url} answered, but neither like Ollama (/api/version) nor like an OpenAI-compatible server (/v1/models)</source>
        <translation>{url} 上的服务器有应答，但既不像 Ollama（/api/version），也不像 OpenAI 兼容服务器（/v1/models）</translation>
    </message>
    <message>
        <source>&apos;{scheme}://&apos; is not supported; use http:// or https://</source>
        <translation>不支持“{scheme}://”；请使用 http:// 或 https://</translation>
    </message>
    <message>
        <source>it contains a space</source>
        <translation>其中含有空格</translation>
    </message>
    <message>
        <source>it has no host name</source>
        <translation>其中没有主机名</translation>
    </message>
    <message>
        <source>port {port} is out of range</source>
        <translation>端口 {port} 超出范围</translation>
    </message>
    <message>
        <source>it contains a user name or password; give the API key separately (so it is kept in the system keyring, not in the address)</source>
        <translation>其中含有用户名或密码；请另外填写 API 密钥（这样它保存在系统密钥环中，而不是地址里）</translation>
    </message>
    <message>
        <source>xllamacpp (the `local` extra) is not installed</source>
        <translation>未安装 xllamacpp（`local` 附加组件）</translation>
    </message>
    <message>
        <source>no model file at {path} ({variable})</source>
        <translation>{path} 处没有模型文件（{variable}）</translation>
    </message>
    <message>
        <source>the model package {name} is missing</source>
        <translation>缺少模型包 {name}</translation>
    </message>
    <message>
        <source>the model file {path} is missing</source>
        <translation>缺少模型文件 {path}</translation>
    </message>
    <message>
        <source>is not started</source>
        <translation>尚未启动</translation>
    </message>
    <message>
        <source>can&apos;t use port {port}: it is in use</source>
        <translation>无法使用端口 {port}：它已被占用</translation>
    </message>
    <message>
        <source>exited during start-up (exit code {code})</source>
        <translation>在启动过程中退出（退出码 {code}）</translation>
    </message>
    <message>
        <source>did not answer within {seconds} s of starting</source>
        <translation>启动后 {seconds} 秒内没有应答</translation>
    </message>
    <message>
        <source>no answer: {detail}</source>
        <translation>没有应答：{detail}</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <source>Something went wrong; the details are in the log. Your text is kept.</source>
        <translation>出了点问题，详情见日志。你的文字已保留。</translation>
    </message>
    <message>
        <source>The server sent nothing for {seconds} s. It may be loading a large model or overloaded: keep waiting, retry, or choose another server.</source>
        <translation>服务器 {seconds} 秒内没有发送任何内容。它可能正在加载大模型或负载过高：请继续等待、重试或选择其他服务器。</translation>
    </message>
    <message>
        <source>The answer stopped arriving: no token for {seconds} s. The text so far is kept; continue or retry.</source>
        <translation>回答停止传来：{seconds} 秒内没有新词元。已生成的文字已保留；可以继续或重试。</translation>
    </message>
    <message>
        <source>The answer was interrupted: {detail}. The text so far is kept; continue or retry.</source>
        <translation>回答被中断：{detail}。已生成的文字已保留；可以继续或重试。</translation>
    </message>
    <message>
        <source>Can&apos;t reach the server at {url}. Check that it is running, or choose another server.</source>
        <translation>无法连接 {url} 上的服务器。请确认它正在运行，或选择其他服务器。</translation>
    </message>
    <message>
        <source>The server has no model named &apos;{model}&apos;. Pick one from the model list.</source>
        <translation>服务器上没有名为“{model}”的模型。请从模型列表中选择一个。</translation>
    </message>
    <message>
        <source>Can&apos;t reach the server at {url} now ({detail}). Check that it is running, or choose another server.</source>
        <translation>现在无法连接 {url} 上的服务器（{detail}）。请确认它正在运行，或选择其他服务器。</translation>
    </message>
    <message>
        <source>No answer arrived in {seconds} s, and the request was cancelled.</source>
        <translation>{seconds} 秒内没有收到回答，请求已取消。</translation>
    </message>
    <message>
        <source>The server is still loading its model. Retry in a moment.</source>
        <translation>服务器仍在加载模型。请稍后重试。</translation>
    </message>
    <message>
        <source>The server was still loading its model after {seconds} s. Keep waiting, or retry in a moment.</source>
        <translation>{seconds} 秒后服务器仍在加载模型。请继续等待，或稍后重试。</translation>
    </message>
    <message>
        <source>The server has no model named &apos;{model}&apos;. Pick one from the model list. The server said: “{said}”.</source>
        <translation>服务器上没有名为“{model}”的模型。请从模型列表中选择一个。服务器说：“{said}”。</translation>
    </message>
    <message>
        <source>The server refused the API key (HTTP {status}). Check the key saved for this server. The server said: “{said}”.</source>
        <translation>服务器拒绝了接口密钥（HTTP {status}）。请检查为此服务器保存的密钥。服务器说：“{said}”。</translation>
    </message>
    <message>
        <source>The server refused the API key (HTTP {status}). Check the key saved for this server.</source>
        <translation>服务器拒绝了接口密钥（HTTP {status}）。请检查为此服务器保存的密钥。</translation>
    </message>
    <message>
        <source>The server reported an error (HTTP {status}). The server said: “{said}”.</source>
        <translation>服务器报告了错误（HTTP {status}）。服务器说：“{said}”。</translation>
    </message>
    <message>
        <source>The server reported an error during the answer. The server said: “{said}”.</source>
        <translation>服务器在回答过程中报告了错误。服务器说：“{said}”。</translation>
    </message>
    <message>
        <source>The server reported an error (HTTP {status}) and gave no details.</source>
        <translation>服务器报告了错误（HTTP {status}），但没有给出详细信息。</translation>
    </message>
    <message>
        <source>The server reported an error during the answer and gave no details.</source>
        <translation>服务器在回答过程中报告了错误，但没有给出详细信息。</translation>
    </message>
    <message>
        <source>The server&apos;s reply could not be read: {detail}. Is this the right URL and API type for this server?</source>
        <translation>无法读取服务器的回复：{detail}。这个服务器的网址和接口类型正确吗？</translation>
    </message>
    <message>
        <source>&apos;{text}&apos; is not a server address: {reason}.</source>
        <translation>“{text}”不是服务器地址：{reason}。</translation>
    </message>
    <message>
        <source>The local model is not available: {what}. Install it with: {command}</source>
        <translation>本地模型不可用：{what}。请用以下命令安装：{command}</translation>
    </message>
    <message>
        <source>The local model engine {reason}.
Last lines from the engine:
{log}</source>
        <translation>本地模型引擎{reason}。
引擎输出的最后几行：
{log}</translation>
    </message>
    <message>
        <source>The local model engine {reason}.</source>
        <translation>本地模型引擎{reason}。</translation>
    </message>
    <message>
        <source>This {api} server does not pull or delete models over its API: only Ollama does. Manage its models where it runs.</source>
        <translation>这个 {api} 服务器不能通过其 API 拉取或删除模型：只有 Ollama 可以。请在它运行的地方管理它的模型。</translation>
    </message>
    <message>
        <source>No system keyring is available, so Tachy cannot keep the API key. Install or unlock one (GNOME Keyring, KWallet, macOS Keychain, Windows Credential Manager) and try again.</source>
        <translation>没有可用的系统密钥环，因此 Tachy 无法保存 API 密钥。请安装或解锁一个（GNOME Keyring、KWallet、macOS Keychain、Windows Credential Manager）后重试。</translation>
    </message>
    <message>
        <source>The system keyring refused the request: {error}</source>
        <translation>系统密钥环拒绝了请求：{error}</translation>
    </message>
    <message>
        <source>The knowledge index {path} cannot be opened: {error}.</source>
        <translation>无法打开知识索引 {path}：{error}。</translation>
    </message>
    <message>
        <source>The knowledge index {path} was written by a newer Tachy; update Tachy or remove the file (your documents are not in it, only their index).</source>
        <translation>知识索引 {path} 由更新版本的 Tachy 写入；请更新 Tachy 或删除该文件（其中没有你的文档，只有它们的索引）。</translation>
    </message>
    <message>
        <source>This Python&apos;s SQLite has no full-text search (FTS5), which the knowledge index needs.</source>
        <translation>这个 Python 的 SQLite 没有知识索引所需的全文搜索（FTS5）。</translation>
    </message>
    <message>
        <source>The knowledge index {path} cannot be used: {error}.</source>
        <translation>无法使用知识索引 {path}：{error}。</translation>
    </message>
    <message>
        <source>The knowledge index {path} is damaged ({error}); remove the file and add your folders again (your documents are not in it, only their index).</source>
        <translation>知识索引 {path} 已损坏（{error}）；请删除该文件并重新添加你的文件夹（其中没有你的文档，只有它们的索引）。</translation>
    </message>
    <message>
        <source>This server&apos;s /metrics has no vLLM or llama.cpp figures.</source>
        <translation>这个服务器的 /metrics 中没有 vLLM 或 llama.cpp 的数据。</translation>
    </message>
    <message>
        <source>The server&apos;s {path} did not answer JSON.</source>
        <translation>服务器的 {path} 的回复不是 JSON。</translation>
    </message>
    <message>
        <source>The server&apos;s {path} answered HTTP {status}.</source>
        <translation>服务器的 {path} 回复了 HTTP {status}。</translation>
    </message>
    <message>
        <source>No server figures: {detail}.</source>
        <translation>没有服务器数据：{detail}。</translation>
    </message>
    <message>
        <source>This server does not offer {path} (start llama.cpp server with --metrics).</source>
        <translation>这个服务器不提供 {path}（请用 --metrics 启动 llama.cpp 服务器）。</translation>
    </message>
    <message>
        <source>This server does not offer {path}.</source>
        <translation>这个服务器不提供 {path}。</translation>
    </message>
    <message>
        <source>A saved server is already called {name}.</source>
        <translation>已经有一个名为 {name} 的已保存服务器。</translation>
    </message>
    <message>
        <source>This model ({model}) cannot see images, so the server refused the message. Your question is kept: remove the image, or choose a model that can see. The server said: “{said}”.</source>
        <translation>这个模型（{model}）看不了图片，所以服务器拒绝了这条消息。你的问题已保留：移除图片，或选择一个能看图的模型。服务器说：“{said}”。</translation>
    </message>
    <message>
        <source>This model ({model}) cannot see images, so the server refused the message. Your question is kept: remove the image, or choose a model that can see.</source>
        <translation>这个模型（{model}）看不了图片，所以服务器拒绝了这条消息。你的问题已保留：移除图片，或选择一个能看图的模型。</translation>
    </message>
    <message>
        <source>{model} cannot see images (the server says it has no vision).</source>
        <translation>{model} 看不了图片（服务器说它没有视觉能力）。</translation>
    </message>
    <message>
        <source>“{name}” is not an image Tachy can read.</source>
        <translation>“{name}”不是 Tachy 能读取的图片。</translation>
    </message>
    <message>
        <source>“{name}” is a {kind} image; send PNG, JPEG, WebP or GIF.</source>
        <translation>“{name}”是 {kind} 图片；请发送 PNG、JPEG、WebP 或 GIF。</translation>
    </message>
    <message>
        <source>“{name}” has too many pixels to send ({megapixels} megapixels).</source>
        <translation>“{name}”像素太多，无法发送（{megapixels} 百万像素）。</translation>
    </message>
    <message>
        <source>“{name}” has too many pixels to send.</source>
        <translation>“{name}”像素太多，无法发送。</translation>
    </message>
    <message>
        <source>“{name}” could not be read: the file is damaged.</source>
        <translation>无法读取“{name}”：文件已损坏。</translation>
    </message>
    <message>
        <source>“{name}” could not be read ({reason}).</source>
        <translation>无法读取“{name}”（{reason}）。</translation>
    </message>
    <message>
        <source>“{name}” is too big to send ({size} MB; the limit is {limit} MB).</source>
        <translation>“{name}”太大，无法发送（{size} MB；上限为 {limit} MB）。</translation>
    </message>
    <message>
        <source>A message takes up to {limit} images; the rest were left out.</source>
        <translation>一条消息最多带 {limit} 张图片；其余的没有附上。</translation>
    </message>
    <message>
        <source>Something went wrong: {error}</source>
        <translation>出了点问题：{error}</translation>
    </message>
    <message>
        <source>Tachy closed while this answer was arriving; the text so far is kept.</source>
        <translation>这条回答传来时 Tachy 关闭了；已生成的文字已保留。</translation>
    </message>
</context>
<context>
    <name>HelpMenu</name>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Check this machine…</source>
        <translation>检查本机…</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>About Tachy</source>
        <translation>关于 Tachy</translation>
    </message>
</context>
<context>
    <name>HudController</name>
    <message>
        <source>No timing was recorded for that answer.</source>
        <translation>该回答没有记录计时。</translation>
    </message>
</context>
<context>
    <name>ImageCost</name>
    <message>
        <source>{original}, sent as it is</source>
        <translation>{original}，按原样发送</translation>
    </message>
    <message>
        <source>{original} → sent {sent}</source>
        <translation>{original} → 发送 {sent}</translation>
    </message>
    <message>
        <source>{n} MB</source>
        <translation>{n} MB</translation>
    </message>
    <message>
        <source>{n} KB</source>
        <translation>{n} KB</translation>
    </message>
    <message>
        <source>{width}×{height}, {amount}</source>
        <translation>{width}×{height}，{amount}</translation>
    </message>
</context>
<context>
    <name>ImportDialog</name>
    <message>
        <source>Import MCP servers</source>
        <translation>导入 MCP 服务器</translation>
    </message>
    <message>
        <source>Paste the JSON here (“mcpServers” from Claude Desktop, LM Studio or Cursor)</source>
        <translation>在此粘贴 JSON（Claude Desktop、LM Studio 或 Cursor 的“mcpServers”）</translation>
    </message>
    <message>
        <source>Open a file…</source>
        <translation>打开文件…</translation>
    </message>
    <message>
        <source>Nothing starts now. A command runs on this computer, with your permissions, the first time one of its tools is used: import only commands you trust.</source>
        <translation>现在不会启动任何东西。命令会在首次使用其工具时以你的权限在本机运行：只导入你信任的命令。</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>No servers.</source>
        <translation>没有服务器。</translation>
    </message>
    <message>
        <source>{name} cannot be imported: {why}</source>
        <translation>{name} 无法导入：{why}</translation>
    </message>
    <message>
        <source>{name} runs: {command}</source>
        <translation>{name} 运行：{command}</translation>
    </message>
    <message>
        <source>with the variables {names}</source>
        <translation>环境变量：{names}</translation>
    </message>
    <message>
        <source>{name} at {url}</source>
        <translation>{name} 位于 {url}</translation>
    </message>
    <message>
        <source>Not used by Tachy: {fields}</source>
        <translation>Tachy 不使用的字段：{fields}</translation>
    </message>
    <message>
        <source>Replaces the saved server of this name.</source>
        <translation>将替换同名的已保存服务器。</translation>
    </message>
    <message numerus="yes">
        <source>Import %n server(s)</source>
        <translation>
            <numerusform>导入 %n 个服务器</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>KeyringNotice</name>
    <message>
        <source>Keyring warning</source>
        <translation>密钥环警告</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Servers without an API key work as usual; a key you enter in Add server is used until Tachy quits and saved nowhere.</source>
        <translation>不需要 API 密钥的服务器照常可用；在“添加服务器”中输入的密钥只用到 Tachy 退出为止，不保存在任何地方。</translation>
    </message>
</context>
<context>
    <name>KnowledgeController</name>
    <message>
        <source>&amp;Knowledge</source>
        <translation>知识库(&amp;K)</translation>
    </message>
    <message>
        <source>Use my documents in this conversation</source>
        <translation>在此对话中使用我的文档</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Add files…</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Add a folder to your knowledge base</source>
        <translation>向知识库添加文件夹</translation>
    </message>
    <message>
        <source>Add files to your knowledge base</source>
        <translation>向知识库添加文件</translation>
    </message>
    <message>
        <source>Nothing added yet</source>
        <translation>尚未添加任何内容</translation>
    </message>
    <message numerus="yes">
        <source>Removed {path}: %Ln file(s) left your knowledge base.</source>
        <translation>
            <numerusform>已移除 {path}：%Ln 个文件已离开知识库。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Indexed %Ln file(s)</source>
        <translation>
            <numerusform>已索引 %Ln 个文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln passage(s)</source>
        <translation>
            <numerusform>%Ln 个段落</numerusform>
        </translation>
    </message>
    <message>
        <source>{files} ({passages}).</source>
        <translation>{files}（{passages}）。</translation>
    </message>
    <message numerus="yes">
        <source>%Ln skipped (binary or unreadable).</source>
        <translation>
            <numerusform>跳过 %Ln 个（二进制或无法读取）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Indexing {source}: {done} of {total} files</source>
        <translation>正在索引 {source}：{done} / {total} 个文件</translation>
    </message>
    <message>
        <source>Your notes were not searched in time; answering without them.</source>
        <translation>未能及时搜索你的笔记；将不使用它们作答。</translation>
    </message>
    <message>
        <source>Your notes could not be searched: {error}</source>
        <translation>无法搜索你的笔记：{error}</translation>
    </message>
    <message>
        <source>{state}… {ms} ms</source>
        <translation>{state}… {ms} 毫秒</translation>
    </message>
    <message>
        <source>Sources:</source>
        <translation>来源：</translation>
    </message>
    <message>
        <source>Sources (searched in {ms} ms):</source>
        <translation>来源（搜索用时 {ms} 毫秒）：</translation>
    </message>
</context>
<context>
    <name>LanguageMenu</name>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <source>The new language is used from the next start of Tachy.</source>
        <translation>新语言将在下次启动 Tachy 时生效。</translation>
    </message>
</context>
<context>
    <name>LatencyFold</name>
    <message>
        <source>Latency (folded)</source>
        <translation>延迟（已折叠）</translation>
    </message>
</context>
<context>
    <name>LatencyHud</name>
    <message>
        <source>Live</source>
        <translation>实时</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Waterfall</source>
        <translation>瀑布图</translation>
    </message>
    <message>
        <source>Tier</source>
        <translation>档位</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Latency views</source>
        <translation>延迟视图</translation>
    </message>
    <message>
        <source>Live tokens per second and gaps</source>
        <translation>实时每秒词元数与间隔</translation>
    </message>
    <message>
        <source>Time to first token per request</source>
        <translation>每个请求的首字延迟</translation>
    </message>
    <message>
        <source>Timing waterfall</source>
        <translation>计时瀑布图</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>Last N requests</source>
        <translation>最近 N 个请求</translation>
    </message>
    <message>
        <source>Statistics</source>
        <translation>统计</translation>
    </message>
    <message>
        <source>Loaded models</source>
        <translation>已加载模型</translation>
    </message>
    <message>
        <source>Instant below</source>
        <translation>即时上限</translation>
    </message>
    <message>
        <source>Fast below</source>
        <translation>快速上限</translation>
    </message>
    <message>
        <source>Typing below</source>
        <translation>输入中上限</translation>
    </message>
    <message>
        <source>Race</source>
        <translation>竞速</translation>
    </message>
    <message>
        <source>{model} at {when} · {outcome}</source>
        <translation>{model}，{when} · {outcome}</translation>
    </message>
    <message>
        <source>request</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>unknown outcome</source>
        <translation>结果未知</translation>
    </message>
    <message>
        <source>Export metrics…</source>
        <translation>导出指标…</translation>
    </message>
    <message>
        <source>Save graphs…</source>
        <translation>保存图表…</translation>
    </message>
    <message>
        <source>Export metrics</source>
        <translation>导出指标</translation>
    </message>
    <message>
        <source>Save graphs</source>
        <translation>保存图表</translation>
    </message>
    <message>
        <source>Pool</source>
        <translation>服务器池</translation>
    </message>
</context>
<context>
    <name>LatencyStrip</name>
    <message>
        <source>Latency (folded): click to open the panel</source>
        <translation>延迟（已折叠）：点击打开面板</translation>
    </message>
    <message>
        <source>Open the latency panel</source>
        <translation>打开延迟面板</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <source>waiting…</source>
        <translation>等待中…</translation>
    </message>
    <message>
        <source>first token
{ms} ms</source>
        <translation>首个词元
{ms} 毫秒</translation>
    </message>
    <message>
        <source>{rate}
tokens/s</source>
        <translation>{rate}
词元/秒</translation>
    </message>
    <message>
        <source>◂ open the panel</source>
        <translation>◂ 打开面板</translation>
    </message>
</context>
<context>
    <name>LivePlot</name>
    <message>
        <source>No reply yet.</source>
        <translation>尚无回复。</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>gap (ms)</source>
        <translation>间隔（毫秒）</translation>
    </message>
    <message>
        <source>seconds since request written</source>
        <translation>请求发出后的秒数</translation>
    </message>
    <message>
        <source>No tokens yet in this reply.</source>
        <translation>本次回复尚无词元。</translation>
    </message>
    <message numerus="yes">
        <source>%Ln chunk(s)</source>
        <translation>
            <numerusform>%Ln 个片段</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln stall(s)</source>
        <translation>
            <numerusform>%Ln 次停顿</numerusform>
        </translation>
    </message>
    <message>
        <source>{rate} tokens/s in the last second</source>
        <translation>最近一秒 {rate} 词元/秒</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Tachy</source>
        <translation>Tachy</translation>
    </message>
    <message>
        <source>Server and model</source>
        <translation>服务器和模型</translation>
    </message>
    <message>
        <source>What to do next</source>
        <translation>下一步</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Send (Enter)</source>
        <translation>发送 (Enter)</translation>
    </message>
    <message>
        <source>Stop the answer (Esc)</source>
        <translation>停止回答 (Esc)</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>&amp;Demo</source>
        <translation>演示(&amp;D)</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <source>Latency HUD</source>
        <translation>延迟面板</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>not reachable</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>Cascade · fast {fast} · strong {strong}</source>
        <translation>级联 · 快速 {fast} · 强大 {strong}</translation>
    </message>
    <message>
        <source>TTFT {time}</source>
        <translation>首字延迟 {time}</translation>
    </message>
</context>
<context>
    <name>ModelPopup</name>
    <message>
        <source>Filter models</source>
        <translation>筛选模型</translation>
    </message>
    <message>
        <source>Type to filter models…</source>
        <translation>输入以筛选模型…</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>No model matches.</source>
        <translation>没有匹配的模型。</translation>
    </message>
</context>
<context>
    <name>ModelsController</name>
    <message>
        <source>⇩ Models</source>
        <translation>⇩ 模型</translation>
    </message>
    <message>
        <source>Pull or delete models…</source>
        <translation>拉取或删除模型…</translation>
    </message>
    <message>
        <source>Manage models</source>
        <translation>管理模型</translation>
    </message>
    <message>
        <source>Pull the missing model</source>
        <translation>拉取缺少的模型</translation>
    </message>
    <message>
        <source>Only an Ollama server pulls and deletes models from here.</source>
        <translation>只有 Ollama 服务器可以在这里拉取和删除模型。</translation>
    </message>
    <message>
        <source>No server is chosen yet.</source>
        <translation>尚未选择服务器。</translation>
    </message>
    <message>
        <source>The pull of {name} was cancelled.</source>
        <translation>{name} 的拉取已取消。</translation>
    </message>
    <message>
        <source>{name} is ready.</source>
        <translation>{name} 已就绪。</translation>
    </message>
    <message>
        <source>Delete model</source>
        <translation>删除模型</translation>
    </message>
    <message>
        <source>Delete {name} from this server? Pulling it again downloads it again.</source>
        <translation>从此服务器删除 {name}？再次拉取需要重新下载。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>This server has no {name}. Pull it from the registry?</source>
        <translation>此服务器没有 {name}。要从模型库拉取吗？</translation>
    </message>
    <message>
        <source>Pull it</source>
        <translation>拉取</translation>
    </message>
</context>
<context>
    <name>ModelsDialog</name>
    <message>
        <source>Models on this server</source>
        <translation>此服务器上的模型</translation>
    </message>
    <message>
        <source>a model name, e.g. llama3.2:1b</source>
        <translation>模型名称，例如 llama3.2:1b</translation>
    </message>
    <message>
        <source>Model to pull</source>
        <translation>要拉取的模型</translation>
    </message>
    <message>
        <source>Pull</source>
        <translation>拉取</translation>
    </message>
    <message>
        <source>Cancel pull</source>
        <translation>取消拉取</translation>
    </message>
    <message>
        <source>Installed models</source>
        <translation>已安装的模型</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>{done} of {total}</source>
        <translation>{done} / {total}</translation>
    </message>
</context>
<context>
    <name>Pool</name>
    <message>
        <source>from {server}</source>
        <translation>来自 {server}</translation>
    </message>
</context>
<context>
    <name>PoolDialog</name>
    <message>
        <source>Edit pool</source>
        <translation>编辑服务器池</translation>
    </message>
    <message>
        <source>New pool</source>
        <translation>新建服务器池</translation>
    </message>
    <message>
        <source>the model every server serves</source>
        <translation>每台服务器都提供的模型</translation>
    </message>
    <message>
        <source>Failover: the first that answers</source>
        <translation>故障转移：第一个应答的服务器</translation>
    </message>
    <message>
        <source>Least loaded: the least busy server</source>
        <translation>最少负载：最空闲的服务器</translation>
    </message>
    <message>
        <source>Hedged: another server when one is slow</source>
        <translation>对冲：某个服务器慢时再发给另一个</translation>
    </message>
    <message>
        <source>Count a llama.cpp server reading the question as started</source>
        <translation>llama.cpp 服务器开始读取问题即视为已开始</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>名称(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Servers</source>
        <translation>服务器(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Policy</source>
        <translation>策略(&amp;P)</translation>
    </message>
    <message>
        <source>Remove this pool…</source>
        <translation>删除此服务器池…</translation>
    </message>
</context>
<context>
    <name>PoolView</name>
    <message>
        <source>Servers of the pool</source>
        <translation>服务器池中的服务器</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>TTFT P50 (ms)</source>
        <translation>首词元时间 P50（毫秒）</translation>
    </message>
    <message>
        <source>TTFT P95 (ms)</source>
        <translation>首词元时间 P95（毫秒）</translation>
    </message>
    <message>
        <source>Answers given</source>
        <translation>给出的回答</translation>
    </message>
    <message>
        <source>Requests sent</source>
        <translation>发送的请求</translation>
    </message>
    <message>
        <source>Failures</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>The chat uses one server, not a pool.</source>
        <translation>聊天使用单个服务器，而非服务器池。</translation>
    </message>
    <message>
        <source>Pool “{name}”</source>
        <translation>服务器池“{name}”</translation>
    </message>
</context>
<context>
    <name>PoolsController</name>
    <message>
        <source>Pools</source>
        <translation>服务器池</translation>
    </message>
    <message>
        <source>Pools: several servers serving one model</source>
        <translation>服务器池：多台服务器提供同一个模型</translation>
    </message>
    <message>
        <source>New pool…</source>
        <translation>新建服务器池…</translation>
    </message>
    <message>
        <source>Edit “{name}”…</source>
        <translation>编辑“{name}”…</translation>
    </message>
</context>
<context>
    <name>PresentBanner</name>
    <message>
        <source>Ask a question: its tier shows here.</source>
        <translation>提一个问题：它的档位会显示在这里。</translation>
    </message>
    <message>
        <source>waiting for the first token…</source>
        <translation>正在等待首个词元…</translation>
    </message>
    <message>
        <source>first token after {ms} ms</source>
        <translation>{ms} 毫秒后出现首个词元</translation>
    </message>
</context>
<context>
    <name>RaceColumnView</name>
    <message>
        <source>Answer of {route}</source>
        <translation>{route} 的回答</translation>
    </message>
    <message>
        <source>Waiting for the first token…</source>
        <translation>正在等待第一个词元…</translation>
    </message>
    <message>
        <source>⚡ first token</source>
        <translation>⚡ 首个词元</translation>
    </message>
    <message>
        <source>🏁 first to finish</source>
        <translation>🏁 最先完成</translation>
    </message>
    <message>
        <source>The model answered with no text.</source>
        <translation>模型的回答没有文字。</translation>
    </message>
    <message>
        <source>Stopped before the first token.</source>
        <translation>在第一个词元之前已停止。</translation>
    </message>
    <message>
        <source>No answer: the reason is below.</source>
        <translation>没有回答：原因见下方。</translation>
    </message>
</context>
<context>
    <name>RaceColumns</name>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop every column (Esc)</source>
        <translation>停止所有列（Esc）</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Close the race (Esc once it has ended)</source>
        <translation>关闭竞速（结束后也可按 Esc）</translation>
    </message>
</context>
<context>
    <name>RaceController</name>
    <message>
        <source>Racing…</source>
        <translation>竞速中…</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <source>Finished.</source>
        <translation>已完成。</translation>
    </message>
</context>
<context>
    <name>RaceDialog</name>
    <message>
        <source>Race</source>
        <translation>竞速</translation>
    </message>
    <message>
        <source>The question every route answers</source>
        <translation>每条路线都要回答的问题</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Keep-alive</source>
        <translation>保持加载</translation>
    </message>
    <message>
        <source>Add a route</source>
        <translation>添加路线</translation>
    </message>
    <message>
        <source>Remove the last route</source>
        <translation>移除最后一条路线</translation>
    </message>
    <message>
        <source>Cascade</source>
        <translation>级联</translation>
    </message>
    <message>
        <source>Speculation</source>
        <translation>推测解码</translation>
    </message>
    <message>
        <source>Knowledge</source>
        <translation>知识库</translation>
    </message>
    <message>
        <source>e.g. 10m</source>
        <translation>例如 10m</translation>
    </message>
</context>
<context>
    <name>RaceMenu</name>
    <message>
        <source>Race…</source>
        <translation>竞速…</translation>
    </message>
    <message>
        <source>Ask one question on several routes at once</source>
        <translation>同时在多条路线上提出同一个问题</translation>
    </message>
    <message>
        <source>Getting the routes ready…</source>
        <translation>正在准备路线…</translation>
    </message>
</context>
<context>
    <name>RaceView</name>
    <message>
        <source>{n} tokens/s</source>
        <translation>{n} 词元/秒</translation>
    </message>
    <message>
        <source>at {time}</source>
        <translation>于 {time}</translation>
    </message>
    <message>
        <source>first token</source>
        <translation>首个词元</translation>
    </message>
    <message>
        <source>first to finish</source>
        <translation>最先完成</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>TTFT {ttft}</source>
        <translation>首字延迟 {ttft}</translation>
    </message>
    <message>
        <source>finished {at}</source>
        <translation>{at}完成</translation>
    </message>
    <message>
        <source>Race</source>
        <translation>竞速</translation>
    </message>
    <message>
        <source>Route</source>
        <translation>路线</translation>
    </message>
    <message>
        <source>TTFT</source>
        <translation>首字延迟</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>Tier</source>
        <translation>档位</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>完成时间</translation>
    </message>
    <message>
        <source>Won</source>
        <translation>胜出</translation>
    </message>
    <message>
        <source>stopped {at}</source>
        <translation>{at}停止</translation>
    </message>
    <message>
        <source>failed {at}</source>
        <translation>{at}失败</translation>
    </message>
    <message>
        <source>QoE {q}</source>
        <translation>QoE {q}</translation>
    </message>
    <message>
        <source>QoE</source>
        <translation>QoE</translation>
    </message>
</context>
<context>
    <name>RaceWindow</name>
    <message>
        <source>Race</source>
        <translation>竞速</translation>
    </message>
</context>
<context>
    <name>ReachBar</name>
    <message>
        <source>Server not answering</source>
        <translation>服务器未响应</translation>
    </message>
    <message>
        <source>Try now</source>
        <translation>立即重试</translation>
    </message>
    <message>
        <source>Use the local model</source>
        <translation>使用本地模型</translation>
    </message>
    <message>
        <source>Loading the model… {server} has started and is loading it; the chat goes on when it is ready.</source>
        <translation>正在加载模型… {server} 已启动，正在加载模型；加载完成后对话将继续。</translation>
    </message>
    <message>
        <source>Trying again now…</source>
        <translation>正在重试…</translation>
    </message>
    <message>
        <source>Trying again at {time} (in {seconds} s).</source>
        <translation>将于 {time} 重试（{seconds} 秒后）。</translation>
    </message>
    <message>
        <source>{server} cannot be reached now.</source>
        <translation>目前无法连接 {server}。</translation>
    </message>
</context>
<context>
    <name>RequestsView</name>
    <message>
        <source>This session</source>
        <translation>本次会话</translation>
    </message>
    <message>
        <source>This model</source>
        <translation>当前模型</translation>
    </message>
    <message>
        <source>Last N</source>
        <translation>最近 N 次</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>Time to first token (ms)</source>
        <translation>首个词元时间（毫秒）</translation>
    </message>
    <message>
        <source>Time per output token (ms)</source>
        <translation>每个输出词元时间（毫秒）</translation>
    </message>
    <message>
        <source>Tokens per second</source>
        <translation>每秒词元数</translation>
    </message>
    <message>
        <source>Tool run (ms)</source>
        <translation>工具运行（毫秒）</translation>
    </message>
    <message>
        <source>time to first token</source>
        <translation>首个词元时间</translation>
    </message>
    <message>
        <source>request</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Exclude cold</source>
        <translation>排除冷启动</translation>
    </message>
    <message>
        <source>Each tool call&apos;s run, and the share of the time of the turns that ran tools spent running them; the wait for your approval is left out.</source>
        <translation>每次工具调用的运行时间，以及调用了工具的回合中运行工具所占的时间比例；等待您批准的时间不计在内。</translation>
    </message>
    <message>
        <source>Scope:</source>
        <translation>范围：</translation>
    </message>
    <message numerus="yes">
        <source>Time in tools: {share}% of %Ln turn(s) with tools</source>
        <translation>
            <numerusform>工具用时：在 %Ln 个调用工具的回合中占 {share}%</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>P99 needs at least %Ln tool runs</source>
        <translation>
            <numerusform>P99 至少需要 %Ln 次工具运行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>these figures are of %Ln tool run(s).</source>
        <translation>
            <numerusform>这些数字来自 %Ln 次工具运行。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>P99 needs at least %Ln requests</source>
        <translation>
            <numerusform>P99 至少需要 %Ln 个请求</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>these figures are of %Ln request(s).</source>
        <translation>
            <numerusform>这些数字来自 %Ln 个请求。</numerusform>
        </translation>
    </message>
    <message>
        <source>{needs}; {has}</source>
        <translation>{needs}；{has}</translation>
    </message>
    <message>
        <source>Request {n}: {ttft} to first token</source>
        <translation>第 {n} 个请求：首个词元 {ttft}</translation>
    </message>
    <message>
        <source>QoE: the share of an answer a reader at {rate} tokens a second, who expects the first token within {wait} s, could read on time (Andes, arXiv 2404.16283). 1.00: never waited for text.</source>
        <translation>QoE：读者以每秒 {rate} 个词元的速度阅读、期望 {wait} 秒内看到第一个词元时，能按时读到的回答比例（Andes，arXiv 2404.16283）。1.00：从未等待文字。</translation>
    </message>
    <message>
        <source>QoE: no answers yet</source>
        <translation>QoE：还没有回答</translation>
    </message>
    <message>
        <source>QoE: P50 {p50} · P5 {p5} · n {n}</source>
        <translation>QoE：P50 {p50} · P5 {p5} · n {n}</translation>
    </message>
    <message>
        <source>{request}, QoE {qoe}</source>
        <translation>{request}，QoE {qoe}</translation>
    </message>
</context>
<context>
    <name>Router</name>
    <message>
        <source>via router</source>
        <translation>经由路由器</translation>
    </message>
</context>
<context>
    <name>RouterWorkers</name>
    <message>
        <source>closed</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>open: sent nothing</source>
        <translation>打开：不再发送请求</translation>
    </message>
    <message>
        <source>half open: trying again</source>
        <translation>半开：正在重试</translation>
    </message>
    <message>
        <source>The router&apos;s workers</source>
        <translation>路由器的工作节点</translation>
    </message>
    <message>
        <source>worker</source>
        <translation>工作节点</translation>
    </message>
    <message>
        <source>health</source>
        <translation>健康状态</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>load</source>
        <translation>负载</translation>
    </message>
    <message>
        <source>requests served</source>
        <translation>已处理请求</translation>
    </message>
    <message>
        <source>circuit breaker</source>
        <translation>熔断器</translation>
    </message>
    <message>
        <source>{worker} is unhealthy: the router sends it no requests until it passes its health check again.</source>
        <translation>{worker} 不健康：在它再次通过健康检查之前，路由器不会向它发送请求。</translation>
    </message>
    <message>
        <source>healthy</source>
        <translation>健康</translation>
    </message>
    <message>
        <source>unhealthy</source>
        <translation>不健康</translation>
    </message>
    <message>
        <source>{total} in all</source>
        <translation>共 {total}</translation>
    </message>
    <message>
        <source>{recent} in the last minute · {total} in all</source>
        <translation>最近一分钟 {recent} · 共 {total}</translation>
    </message>
    <message>
        <source>{recent} in the last {s} s · {total} in all</source>
        <translation>最近 {s} 秒 {recent} · 共 {total}</translation>
    </message>
    <message>
        <source>{policy} chose {worker}: {counted}</source>
        <translation>{policy} 选择了 {worker}：{counted}</translation>
    </message>
    <message>
        <source>The router&apos;s own metrics were not found: Tachy looks for them on port 29000 of its host (vllm-router --prometheus-port 29000), or where the server&apos;s settings say (✎ Edit, Router metrics).</source>
        <translation>未找到路由器自身的指标：Tachy 会在其主机的 29000 端口查找（vllm-router --prometheus-port 29000），或在服务器设置所给的地址查找（✎ 编辑，路由器指标）。</translation>
    </message>
    <message>
        <source>The router spreads requests ({policy}): a warm-up lands on one worker and the question most likely on another, so warming cannot help here.</source>
        <translation>路由器会分散请求（{policy}）：预热落在一个工作节点上，而问题很可能落在另一个上，因此预热在这里没有帮助。</translation>
    </message>
</context>
<context>
    <name>ServerBar</name>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>+ Add</source>
        <translation>+ 添加</translation>
    </message>
    <message>
        <source>Add server…</source>
        <translation>添加服务器…</translation>
    </message>
    <message>
        <source>Add server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <source>&amp;Server:</source>
        <translation>服务器(&amp;S)：</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>模型(&amp;M)：</translation>
    </message>
    <message>
        <source>starts when chosen</source>
        <translation>选择后启动</translation>
    </message>
    <message>
        <source>Local model (SmolLM2-135M)</source>
        <translation>本地模型 (SmolLM2-135M)</translation>
    </message>
    <message>
        <source>Latency lab (demo)</source>
        <translation>延迟实验室（演示）</translation>
    </message>
    <message>
        <source>Ollama on this computer ({port})</source>
        <translation>本机 Ollama（{port}）</translation>
    </message>
    <message>
        <source>OpenAI-compatible server on this computer ({port})</source>
        <translation>本机 OpenAI 兼容服务器（{port}）</translation>
    </message>
</context>
<context>
    <name>ServerController</name>
    <message>
        <source>Starting local model…</source>
        <translation>正在启动本地模型…</translation>
    </message>
    <message>
        <source>Server at {where}</source>
        <translation>{where} 上的服务器</translation>
    </message>
    <message>
        <source>Your question is kept and goes out when the model is loaded.</source>
        <translation>你的问题已保留，模型加载完成后即会发送。</translation>
    </message>
    <message>
        <source>Your question is kept and goes out when the server answers.</source>
        <translation>你的问题已保留，服务器响应后即会发送。</translation>
    </message>
    <message>
        <source>Starting local model… your question is kept and goes out when it is ready.</source>
        <translation>正在启动本地模型……你的问题已保留，模型就绪后立即发送。</translation>
    </message>
    <message>
        <source>{name} cannot be used: {why}</source>
        <translation>无法使用 {name}：{why}</translation>
    </message>
    <message>
        <source>{name} cannot be used: {why} Answers still come from {current}.</source>
        <translation>无法使用 {name}：{why} 回答仍来自 {current}。</translation>
    </message>
</context>
<context>
    <name>ServerEditor</name>
    <message>
        <source>✎ Edit</source>
        <translation>✎ 编辑</translation>
    </message>
    <message>
        <source>Edit or remove this saved server…</source>
        <translation>编辑或移除此已保存的服务器…</translation>
    </message>
    <message>
        <source>Edit server</source>
        <translation>编辑服务器</translation>
    </message>
    <message>
        <source>Remove server</source>
        <translation>移除服务器</translation>
    </message>
    <message>
        <source>Remove “{name}”? Its API key is deleted from the system keyring too.</source>
        <translation>移除“{name}”？它的 API 密钥也会从系统密钥环中删除。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
</context>
<context>
    <name>ServerView</name>
    <message>
        <source>llama.cpp server</source>
        <translation>llama.cpp 服务器</translation>
    </message>
    <message>
        <source>awake</source>
        <translation>已唤醒</translation>
    </message>
    <message>
        <source>asleep: weights offloaded</source>
        <translation>休眠：权重已卸载</translation>
    </message>
    <message>
        <source>asleep: weights and cache discarded</source>
        <translation>休眠：权重和缓存已丢弃</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>kv cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>server TTFT</source>
        <translation>服务器首字延迟</translation>
    </message>
    <message>
        <source>server TTFT, last minute</source>
        <translation>服务器首字延迟（最近一分钟）</translation>
    </message>
    <message>
        <source>draft acceptance</source>
        <translation>草稿接受率</translation>
    </message>
    <message>
        <source>prompt tokens/s</source>
        <translation>提示词元/秒</translation>
    </message>
    <message>
        <source>decode tokens/s</source>
        <translation>生成词元/秒</translation>
    </message>
    <message>
        <source>prompt cache hits</source>
        <translation>提示缓存命中</translation>
    </message>
    <message>
        <source>busy slots</source>
        <translation>忙碌槽位</translation>
    </message>
    <message>
        <source>engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>No server chosen.</source>
        <translation>尚未选择服务器。</translation>
    </message>
    <message>
        <source>loaded model</source>
        <translation>已加载模型</translation>
    </message>
    <message>
        <source>VRAM</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>unloads in</source>
        <translation>卸载倒计时</translation>
    </message>
    <message>
        <source>Asking {url} …</source>
        <translation>正在询问 {url} …</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>{kind} · updated {clock}</source>
        <translation>{kind} · 更新于 {clock}</translation>
    </message>
    <message>
        <source>no request in the last minute</source>
        <translation>最近一分钟没有请求</translation>
    </message>
    <message>
        <source>P50 {p50} ms · P95 {p95} ms (n={n})</source>
        <translation>P50 {p50} 毫秒 · P95 {p95} 毫秒（n={n}）</translation>
    </message>
    <message numerus="yes">
        <source>%Ln thread(s)</source>
        <translation>
            <numerusform>%Ln 个线程</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln slot(s) of {ctx} tokens</source>
        <translation>
            <numerusform>%Ln 个槽位，每个 {ctx} 词元</numerusform>
        </translation>
    </message>
    <message>
        <source>{threads} · {slots} · batch {batch} · prompt cache {cache} MiB · speculative: {spec} · unload after idle: {idle}</source>
        <translation>{threads} · {slots} · 批大小 {batch} · 提示缓存 {cache} MiB · 推测解码：{spec} · 空闲后卸载：{idle}</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从不</translation>
    </message>
    <message>
        <source>{s} s</source>
        <translation>{s} 秒</translation>
    </message>
    <message>
        <source> · {ctx} tokens each</source>
        <translation> · 每个 {ctx} 词元</translation>
    </message>
    <message>
        <source> · model asleep (unloaded after idle)</source>
        <translation> · 模型休眠（空闲后已卸载）</translation>
    </message>
    <message>
        <source>stays loaded</source>
        <translation>保持加载</translation>
    </message>
</context>
<context>
    <name>SettingsMenu</name>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>{page}…</source>
        <translation>{page}…</translation>
    </message>
    <message>
        <source>Tools (MCP servers)…</source>
        <translation>工具（MCP 服务器）…</translation>
    </message>
    <message>
        <source>All settings…</source>
        <translation>全部设置…</translation>
    </message>
</context>
<context>
    <name>SettingsWindow</name>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待</translation>
    </message>
    <message>
        <source>Documents and cascade</source>
        <translation>文档与级联</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>As the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Changes take effect at once.</source>
        <translation>更改立即生效。</translation>
    </message>
    <message>
        <source>None: the model&apos;s own</source>
        <translation>无：使用模型自带的</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>the server&apos;s own</source>
        <translation>服务器默认</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Longest answer (tokens)</source>
        <translation>最长回答（词元）</translation>
    </message>
    <message>
        <source>Keep the model loaded</source>
        <translation>保持模型加载</translation>
    </message>
    <message>
        <source>Prompt budget</source>
        <translation>提示词预算</translation>
    </message>
    <message>
        <source>Offer Keep waiting / Cancel after</source>
        <translation>多久后提供“继续等待 / 取消”</translation>
    </message>
    <message>
        <source>A silent stream has stalled after</source>
        <translation>无输出多久视为停滞</translation>
    </message>
    <message>
        <source>A cascade&apos;s model waits at most</source>
        <translation>级联模型最多等待</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Search my documents in this conversation (Ctrl+K)</source>
        <translation>在此对话中搜索我的文档（Ctrl+K）</translation>
    </message>
    <message>
        <source>Add a folder of documents…</source>
        <translation>添加文档文件夹…</translation>
    </message>
    <message>
        <source>Use the cascade</source>
        <translation>使用级联</translation>
    </message>
    <message>
        <source>Let the fast model choose the model</source>
        <translation>让快速模型选择模型</translation>
    </message>
    <message>
        <source>Summarise long conversations</source>
        <translation>总结较长的对话</translation>
    </message>
    <message>
        <source>The fast and strong models are chosen in the Cascade menu.</source>
        <translation>快速模型和强模型在“级联”菜单中选择。</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>Text size</source>
        <translation>文字大小</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
</context>
<context>
    <name>Shortcuts</name>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>New line in the message</source>
        <translation>在消息中换行</translation>
    </message>
    <message>
        <source>Stop the answer (leave Present)</source>
        <translation>停止回答（退出演讲模式）</translation>
    </message>
    <message>
        <source>Ask again</source>
        <translation>重新提问</translation>
    </message>
    <message>
        <source>Ask the strong model (cascade)</source>
        <translation>询问强模型（级联）</translation>
    </message>
    <message>
        <source>Re-ask with the other model (cascade)</source>
        <translation>用另一个模型重新提问（级联）</translation>
    </message>
    <message>
        <source>Search my documents in this conversation</source>
        <translation>在此对话中搜索我的文档</translation>
    </message>
    <message>
        <source>New conversation</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Search the conversations</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Go to the message box</source>
        <translation>转到消息框</translation>
    </message>
    <message>
        <source>Show or hide the conversations</source>
        <translation>显示或隐藏对话列表</translation>
    </message>
    <message>
        <source>Show or hide the latency panel</source>
        <translation>显示或隐藏延迟面板</translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation>放大</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>缩小</translation>
    </message>
    <message>
        <source>Actual size</source>
        <translation>实际大小</translation>
    </message>
    <message>
        <source>Full screen</source>
        <translation>全屏</translation>
    </message>
    <message>
        <source>Present (F5 or Esc leaves)</source>
        <translation>演讲模式（按 F5 或 Esc 退出）</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Race one question on several routes</source>
        <translation>在多条路线上同时竞速一个问题</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>What it does</source>
        <translation>作用</translation>
    </message>
</context>
<context>
    <name>StatusText</name>
    <message>
        <source>{n} h</source>
        <translation>{n} 小时</translation>
    </message>
    <message>
        <source>{n} min</source>
        <translation>{n} 分钟</translation>
    </message>
    <message>
        <source>{n} s</source>
        <translation>{n} 秒</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>加载中…</translation>
    </message>
    <message>
        <source>cold</source>
        <translation>未加载</translation>
    </message>
    <message>
        <source>warm</source>
        <translation>已就绪</translation>
    </message>
    <message>
        <source>warm · {left} left</source>
        <translation>已就绪 · 剩余 {left}</translation>
    </message>
    <message>
        <source>{n} ms</source>
        <translation>{n} 毫秒</translation>
    </message>
    <message>
        <source>≈ {amount} to first token, after the model loads</source>
        <translation>模型加载后，约 {amount} 出现首个词元</translation>
    </message>
    <message>
        <source>≈ {amount} to first token</source>
        <translation>约 {amount} 出现首个词元</translation>
    </message>
    <message>
        <source>This server</source>
        <translation>此服务器</translation>
    </message>
    <message>
        <source>The local engine</source>
        <translation>本地引擎</translation>
    </message>
    <message>
        <source>Ollama unloads idle models on its own schedule (5 minutes by default): Tachy loads the model when you start typing and lets the server unload it.</source>
        <translation>Ollama 会按自己的节奏卸载空闲模型（默认 5 分钟）：你开始输入时 Tachy 加载模型，之后由服务器卸载。</translation>
    </message>
    <message>
        <source>Ollama unloads idle models: Tachy loads the model with keep-alive {keep_alive} and re-warms it before it expires while you use the app.</source>
        <translation>Ollama 会卸载空闲模型：Tachy 以保持加载 {keep_alive} 加载模型，并在你使用应用期间于到期前重新预热。</translation>
    </message>
    <message>
        <source>{name} keeps the model loaded while it runs: Tachy sends one 1-token request after it starts, then one when you open or type in a conversation it has not seen, so its prompt cache holds the conversation before you send.</source>
        <translation>{name}运行期间会一直加载模型：Tachy 在它启动后发送一个 1 词元请求，之后在你打开或输入它未见过的对话时再发送一个，这样在你发送之前，它的提示缓存里已经有这段对话。</translation>
    </message>
    <message>
        <source>The local engine unloads the model after {keep_alive} idle: Tachy loads it again when you start typing, with the conversation in its prompt cache.</source>
        <translation>本地引擎空闲 {keep_alive} 后会卸载模型：你开始输入时 Tachy 会重新加载它，并把这段对话放进它的提示缓存。</translation>
    </message>
    <message>
        <source>This server may unload idle models on its own schedule: Tachy sends a 1-token request when you start typing and the model may have gone cold.</source>
        <translation>此服务器可能按自己的节奏卸载空闲模型：当你开始输入而模型可能已冷却时，Tachy 会发送一个 1 词元请求。</translation>
    </message>
    <message>
        <source>Tachy warms the model when you start typing.</source>
        <translation>你开始输入时，Tachy 会预热模型。</translation>
    </message>
</context>
<context>
    <name>StorageBanner</name>
    <message>
        <source>History warning</source>
        <translation>历史记录警告</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Dismiss the history warning</source>
        <translation>关闭历史记录警告</translation>
    </message>
    <message>
        <source>Tachy cannot save right now ({reason}). Everything stays on screen and is saved as soon as there is room again.</source>
        <translation>Tachy 暂时无法保存（{reason}）。所有内容都留在屏幕上，一旦有空间就会保存。</translation>
    </message>
    <message>
        <source>Saving works again: everything kept meanwhile is saved.</source>
        <translation>保存已恢复：期间保留的内容都已保存。</translation>
    </message>
    <message>
        <source>Your history was damaged ({reason}). It was kept as {kept}, and {rows} readable entries were recovered into a new history.</source>
        <translation>你的历史记录已损坏（{reason}）。原文件保留为 {kept}，{rows} 条可读记录已恢复到新的历史记录中。</translation>
    </message>
    <message>
        <source>This history was written by a newer Tachy ({reason}). It is shown read-only from {path}; nothing you do now is saved. Update Tachy to keep chatting in it.</source>
        <translation>此历史记录由更新版本的 Tachy 写入（{reason}）。它以只读方式从 {path} 显示；现在的操作都不会保存。请更新 Tachy 以继续在其中聊天。</translation>
    </message>
    <message>
        <source>Nothing is being saved: Tachy cannot write to {folder} ({reason}). Your conversations are kept in memory until you quit. Fix the folder, or set TACHY_DATA_DIR to another one, and restart.</source>
        <translation>当前不会保存任何内容：Tachy 无法写入 {folder}（{reason}）。你的对话保留在内存中，直到退出。请修复该文件夹，或将 TACHY_DATA_DIR 设为其他文件夹，然后重启。</translation>
    </message>
</context>
<context>
    <name>SummaryMarker</name>
    <message numerus="yes">
        <source>Earlier turns summarised (%Ln message(s))</source>
        <translation>
            <numerusform>较早的对话已总结（%Ln 条消息）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TierView</name>
    <message>
        <source>No reply yet.</source>
        <translation>尚无回复。</translation>
    </message>
    <message>
        <source>instant below</source>
        <translation>即时上限</translation>
    </message>
    <message>
        <source>fast below</source>
        <translation>快速上限</translation>
    </message>
    <message>
        <source>typing below</source>
        <translation>输入中上限</translation>
    </message>
    <message>
        <source> ms</source>
        <translation> 毫秒</translation>
    </message>
    <message>
        <source>The last reply had no first token.</source>
        <translation>上一条回复没有首个词元。</translation>
    </message>
    <message>
        <source>time to first token {ms} ms</source>
        <translation>首个词元用时 {ms} 毫秒</translation>
    </message>
    <message>
        <source>The window showed: {what}</source>
        <translation>窗口显示了：{what}</translation>
    </message>
    <message>
        <source>no first token</source>
        <translation>没有首个词元</translation>
    </message>
    <message>
        <source>{tier} · {ms} ms</source>
        <translation>{tier} · {ms} 毫秒</translation>
    </message>
    <message>
        <source>Last replies</source>
        <translation>最近的回复</translation>
    </message>
</context>
<context>
    <name>Tiers</name>
    <message>
        <source>instant</source>
        <translation>即时</translation>
    </message>
    <message>
        <source>fast</source>
        <translation>快速</translation>
    </message>
    <message>
        <source>typing</source>
        <translation>输入中</translation>
    </message>
    <message>
        <source>slow</source>
        <translation>缓慢</translation>
    </message>
    <message>
        <source>nothing: the reply feels instant</source>
        <translation>无：回复感觉即时</translation>
    </message>
    <message>
        <source>nothing: the reply came before the typing indicator</source>
        <translation>无：回复在输入提示之前到达</translation>
    </message>
    <message>
        <source>typing indicator</source>
        <translation>输入提示</translation>
    </message>
    <message>
        <source>stages ({stages})</source>
        <translation>阶段（{stages}）</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
</context>
<context>
    <name>ToolCard</name>
    <message>
        <source>Arguments complete</source>
        <translation>参数已完整</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>出错</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>No result</source>
        <translation>没有结果</translation>
    </message>
    <message>
        <source>{ms} ms</source>
        <translation>{ms} 毫秒</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} 秒</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Hide the arguments and the result</source>
        <translation>隐藏参数和结果</translation>
    </message>
    <message>
        <source>Show the arguments and the result</source>
        <translation>显示参数和结果</translation>
    </message>
    <message>
        <source>… ({count} more characters: Copy gives them all)</source>
        <translation>…（还有 {count} 个字符：复制可得到全部）</translation>
    </message>
</context>
<context>
    <name>ToolProblems</name>
    <message>
        <source>The command &apos;{command}&apos; of {server} was not found: check that it is installed.</source>
        <translation>找不到 {server} 的命令“{command}”：请检查是否已安装。</translation>
    </message>
    <message>
        <source>The command &apos;{command}&apos; of {server} cannot be run: {detail}.</source>
        <translation>无法运行 {server} 的命令“{command}”：{detail}。</translation>
    </message>
    <message>
        <source>{server} stopped before it answered.</source>
        <translation>{server} 在应答之前就停止了。</translation>
    </message>
    <message>
        <source>{server} stopped before it answered; it said: {said}</source>
        <translation>{server} 在应答之前就停止了；它输出：{said}</translation>
    </message>
    <message>
        <source>{server} did not answer within {seconds} s.</source>
        <translation>{server} 在 {seconds} 秒内没有应答。</translation>
    </message>
    <message>
        <source>Nothing answers at {url}: check that the server is running.</source>
        <translation>{url} 没有应答：请检查服务器是否在运行。</translation>
    </message>
    <message>
        <source>The server at {url} refused Tachy (HTTP {status}): check its headers.</source>
        <translation>{url} 的服务器拒绝了 Tachy（HTTP {status}）：请检查请求头。</translation>
    </message>
    <message>
        <source>The server at {url} answered HTTP {status}: it may not be an MCP server.</source>
        <translation>{url} 的服务器返回 HTTP {status}：它可能不是 MCP 服务器。</translation>
    </message>
    <message>
        <source>{server} stopped while {tool} was running.</source>
        <translation>{server} 在运行 {tool} 时停止了。</translation>
    </message>
    <message>
        <source>{server} stopped answering after a cancelled call, so Tachy stopped it.</source>
        <translation>{server} 在调用取消后不再应答，Tachy 已将其停止。</translation>
    </message>
    <message>
        <source>{tool} did not finish within {seconds} s, so it was cancelled.</source>
        <translation>{tool} 没有在 {seconds} 秒内完成，已取消。</translation>
    </message>
    <message>
        <source>There is no tool server called {server}.</source>
        <translation>没有名为 {server} 的工具服务器。</translation>
    </message>
    <message>
        <source>{server} failed: {detail}</source>
        <translation>{server} 出错：{detail}</translation>
    </message>
    <message>
        <source>The file is not JSON: {detail} (line {line}, column {column}).</source>
        <translation>该文件不是 JSON：{detail}（第 {line} 行，第 {column} 列）。</translation>
    </message>
    <message>
        <source>The file has no &quot;mcpServers&quot; object: it is not an MCP servers file.</source>
        <translation>该文件没有“mcpServers”对象：它不是 MCP 服务器文件。</translation>
    </message>
    <message>
        <source>Its settings are not a JSON object.</source>
        <translation>它的设置不是 JSON 对象。</translation>
    </message>
    <message>
        <source>It has neither a command nor a url.</source>
        <translation>它既没有命令也没有地址。</translation>
    </message>
    <message>
        <source>It has both a command and a url.</source>
        <translation>它同时有命令和地址。</translation>
    </message>
    <message>
        <source>It uses the older SSE transport, which Tachy does not speak.</source>
        <translation>它使用旧的 SSE 传输方式，Tachy 不支持。</translation>
    </message>
    <message>
        <source>Its type &apos;{kind}&apos; is not one Tachy knows.</source>
        <translation>Tachy 不认识它的类型“{kind}”。</translation>
    </message>
    <message>
        <source>Its {field} is not what it should be ({detail}).</source>
        <translation>它的 {field} 格式不对（应为{detail}）。</translation>
    </message>
    <message>
        <source>a list of strings</source>
        <translation>字符串列表</translation>
    </message>
    <message>
        <source>an object</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>text values</source>
        <translation>文本值</translation>
    </message>
    <message>
        <source>a string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <source>A tool server needs a name of 1 to {most} characters.</source>
        <translation>工具服务器需要一个 1 到 {most} 个字符的名称。</translation>
    </message>
    <message>
        <source>A tool server started by Tachy needs a command.</source>
        <translation>由 Tachy 启动的工具服务器需要一条命令。</translation>
    </message>
    <message>
        <source>&apos;{name}&apos; is not a name an environment variable can have.</source>
        <translation>“{name}”不能用作环境变量名。</translation>
    </message>
    <message>
        <source>&apos;{url}&apos; is not an http:// or https:// address.</source>
        <translation>“{url}”不是 http:// 或 https:// 地址。</translation>
    </message>
    <message>
        <source>&apos;{name}&apos; is not a name an HTTP header can have.</source>
        <translation>“{name}”不能用作 HTTP 请求头名称。</translation>
    </message>
    <message>
        <source>The command line cannot be read: {detail}.</source>
        <translation>无法解析命令行：{detail}。</translation>
    </message>
    <message>
        <source>A tool server is already called &apos;{name}&apos;.</source>
        <translation>已有名为“{name}”的工具服务器。</translation>
    </message>
</context>
<context>
    <name>ToolServerDialog</name>
    <message>
        <source>Change tool server</source>
        <translation>修改工具服务器</translation>
    </message>
    <message>
        <source>Add tool server</source>
        <translation>添加工具服务器</translation>
    </message>
    <message>
        <source>A command Tachy starts (stdio)</source>
        <translation>Tachy 启动的命令（stdio）</translation>
    </message>
    <message>
        <source>An address (Streamable HTTP)</source>
        <translation>网络地址（Streamable HTTP）</translation>
    </message>
    <message>
        <source>On in conversations that have not chosen</source>
        <translation>在未另行选择的对话中启用</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>名称(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Kind</source>
        <translation>类型(&amp;K)</translation>
    </message>
    <message>
        <source>NAME=value</source>
        <translation>名称=值</translation>
    </message>
    <message>
        <source>Tachy&apos;s own</source>
        <translation>Tachy 自己的</translation>
    </message>
    <message>
        <source>&amp;Command</source>
        <translation>命令(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Environment</source>
        <translation>环境变量(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Working folder</source>
        <translation>工作文件夹(&amp;W)</translation>
    </message>
    <message>
        <source>The command runs with your permissions. It gets only the variables above, with PATH, HOME, USER, LOGNAME, SHELL and TERM so it can start; their values are kept in the system keyring.</source>
        <translation>该命令以你的权限运行。它只获得上面的变量，以及启动所需的 PATH、HOME、USER、LOGNAME、SHELL 和 TERM；变量的值保存在系统密钥环中。</translation>
    </message>
    <message>
        <source>Name: value</source>
        <translation>名称: 值</translation>
    </message>
    <message>
        <source>&amp;Address</source>
        <translation>地址(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Headers</source>
        <translation>请求头(&amp;H)</translation>
    </message>
    <message>
        <source>The headers&apos; values are kept in the system keyring.</source>
        <translation>请求头的值保存在系统密钥环中。</translation>
    </message>
    <message>
        <source>Line {number} is not “{form}”.</source>
        <translation>第 {number} 行不是“{form}”格式。</translation>
    </message>
</context>
<context>
    <name>ToolTurnView</name>
    <message>
        <source>Use tools in this conversation</source>
        <translation>在此对话中使用工具</translation>
    </message>
    <message>
        <source>Starting the tool servers… {seconds} s</source>
        <translation>正在启动工具服务器… {seconds} 秒</translation>
    </message>
    <message>
        <source>Using {tool}… {progress} · {seconds} s</source>
        <translation>正在使用 {tool}… {progress} · {seconds} 秒</translation>
    </message>
    <message>
        <source>Using {tool}… {seconds} s</source>
        <translation>正在使用 {tool}… {seconds} 秒</translation>
    </message>
    <message>
        <source>{progress} of {total}</source>
        <translation>{progress} / {total}</translation>
    </message>
    <message>
        <source>{whole} s in all, {seconds} s in tools ({percent}%)</source>
        <translation>共 {whole} 秒，工具用时 {seconds} 秒（{percent}%）</translation>
    </message>
    <message>
        <source>{seconds} s waiting for your approval, not counted</source>
        <translation>等待您批准 {seconds} 秒，不计入</translation>
    </message>
</context>
<context>
    <name>ToolsController</name>
    <message>
        <source>Remove tool server</source>
        <translation>移除工具服务器</translation>
    </message>
    <message>
        <source>Remove {name}? Its settings, the values kept in the keyring and its always allowed tools are forgotten.</source>
        <translation>移除 {name}？它的设置、密钥环中保存的值以及始终允许的工具都会被删除。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Open an MCP servers file</source>
        <translation>打开 MCP 服务器文件</translation>
    </message>
    <message>
        <source>JSON files (*.json);;All files (*)</source>
        <translation>JSON 文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>it is larger than 1 MB</source>
        <translation>文件大于 1 MB</translation>
    </message>
    <message>
        <source>{file} cannot be read: {why}</source>
        <translation>无法读取 {file}：{why}</translation>
    </message>
    <message>
        <source>{name} was not imported: {why}</source>
        <translation>{name} 未导入：{why}</translation>
    </message>
</context>
<context>
    <name>ToolsWindow</name>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Tool servers</source>
        <translation>工具服务器</translation>
    </message>
    <message>
        <source>Tachy asks before a tool runs, unless you always allow it. A tool&apos;s result is data for the model: it never makes Tachy act on its own.</source>
        <translation>工具运行前 Tachy 会先询问，除非你始终允许它。工具的结果只是给模型的数据：它绝不会让 Tachy 自行行动。</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>What it does</source>
        <translation>用途</translation>
    </message>
    <message>
        <source>Approval</source>
        <translation>审批</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Import JSON…</source>
        <translation>导入 JSON…</translation>
    </message>
    <message>
        <source>Change…</source>
        <translation>修改…</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>移除…</translation>
    </message>
    <message>
        <source>Add the demo server</source>
        <translation>添加演示服务器</translation>
    </message>
    <message>
        <source>{name} — {state}</source>
        <translation>{name} — {state}</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message numerus="yes">
        <source>%n tool(s)</source>
        <translation>
            <numerusform>%n 个工具</numerusform>
        </translation>
    </message>
    <message>
        <source>failed</source>
        <translation>出错</translation>
    </message>
    <message>
        <source>not started</source>
        <translation>未启动</translation>
    </message>
    <message>
        <source>No tool servers yet</source>
        <translation>还没有工具服务器</translation>
    </message>
    <message>
        <source>Add one, import the JSON of another app, or add the demo server.</source>
        <translation>添加一个，导入其他应用的 JSON，或添加演示服务器。</translation>
    </message>
    <message>
        <source>Runs: {command}</source>
        <translation>运行：{command}</translation>
    </message>
    <message>
        <source>At: {url}</source>
        <translation>地址：{url}</translation>
    </message>
    <message>
        <source>Try again</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Restart</source>
        <translation>重新启动</translation>
    </message>
    <message>
        <source>Start and list tools</source>
        <translation>启动并列出工具</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message numerus="yes">
        <source>Ready: %n tool(s).</source>
        <translation>
            <numerusform>就绪：%n 个工具。</numerusform>
        </translation>
    </message>
    <message>
        <source>Failed: {why}</source>
        <translation>出错：{why}</translation>
    </message>
    <message>
        <source>Not started: it starts when one of its tools is first used.</source>
        <translation>未启动：首次使用其工具时启动。</translation>
    </message>
    <message>
        <source>Approval of {tool}</source>
        <translation>{tool} 的审批</translation>
    </message>
    <message>
        <source>Ask first</source>
        <translation>先询问</translation>
    </message>
    <message>
        <source>Always allow</source>
        <translation>始终允许</translation>
    </message>
</context>
<context>
    <name>TtftAxis</name>
    <message>
        <source>{s} s</source>
        <translation>{s} 秒</translation>
    </message>
    <message>
        <source>{ms} ms</source>
        <translation>{ms} 毫秒</translation>
    </message>
</context>
<context>
    <name>TurnState</name>
    <message>
        <source>Getting ready</source>
        <translation>正在准备</translation>
    </message>
    <message>
        <source>Connecting</source>
        <translation>正在连接</translation>
    </message>
    <message>
        <source>Waiting for the server</source>
        <translation>正在等待服务器</translation>
    </message>
    <message>
        <source>Loading the model</source>
        <translation>正在加载模型</translation>
    </message>
    <message>
        <source>Reading your question</source>
        <translation>正在阅读你的问题</translation>
    </message>
    <message>
        <source>Searching your notes</source>
        <translation>正在搜索你的笔记</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>正在思考</translation>
    </message>
    <message>
        <source>Answering</source>
        <translation>正在回答</translation>
    </message>
    <message>
        <source>Waiting for your approval</source>
        <translation>等待您的批准</translation>
    </message>
    <message>
        <source>Using a tool</source>
        <translation>正在使用工具</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>not sent: server unreachable</source>
        <translation>未发送：无法连接服务器</translation>
    </message>
    <message>
        <source>cancelled while waiting</source>
        <translation>等待时已取消</translation>
    </message>
    <message>
        <source>No answer after {seconds} s. {state}…</source>
        <translation>{seconds} 秒后仍无回答。{state}…</translation>
    </message>
    <message>
        <source>Reading your question and image</source>
        <translation>正在读取你的问题和图片</translation>
    </message>
    <message>
        <source>No token for a while</source>
        <translation>一段时间没有新词元</translation>
    </message>
</context>
<context>
    <name>TypeAheadController</name>
    <message>
        <source>Question read while typing</source>
        <translation>输入时已读取的问题</translation>
    </message>
    <message>
        <source>Read the question while I type</source>
        <translation>在我输入时读取问题</translation>
    </message>
    <message>
        <source>The server reads the draft as it is written, so Enter answers sooner</source>
        <translation>服务器在您输入时读取草稿，按回车后回答更快</translation>
    </message>
    <message>
        <source>Question read: {read} of {total} tokens</source>
        <translation>问题已读取：{total} 个词元中的 {read} 个</translation>
    </message>
</context>
<context>
    <name>ViewMenu</name>
    <message>
        <source>System theme</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话列表</translation>
    </message>
    <message>
        <source>Latency panel</source>
        <translation>延迟面板</translation>
    </message>
    <message>
        <source>Full screen</source>
        <translation>全屏</translation>
    </message>
    <message>
        <source>Present</source>
        <translation>演讲模式</translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation>放大</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>缩小</translation>
    </message>
    <message>
        <source>Actual size</source>
        <translation>实际大小</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Smooth streaming</source>
        <translation>平滑显示</translation>
    </message>
    <message>
        <source>Show an answer&apos;s words at a steady pace, at most a second behind</source>
        <translation>以平稳的节奏显示回答的文字，最多落后一秒</translation>
    </message>
</context>
<context>
    <name>Waiting</name>
    <message>
        <source>Typing…</source>
        <translation>正在输入…</translation>
    </message>
    <message>
        <source>{stage}… {seconds} s</source>
        <translation>{stage}… {seconds} 秒</translation>
    </message>
    <message>
        <source>{stage}… {percent} % ({done} / {total} tokens)</source>
        <translation>{stage}… {percent} %（{done} / {total} 个词元）</translation>
    </message>
    <message>
        <source>{progress}, about {seconds} s left</source>
        <translation>{progress}，还需约 {seconds} 秒</translation>
    </message>
    <message>
        <source>No token for {seconds} s…</source>
        <translation>已有 {seconds} 秒没有新词元…</translation>
    </message>
</context>
<context>
    <name>WarmingController</name>
    <message>
        <source>Keep the model loaded 5 min</source>
        <translation>模型保持加载 5 分钟</translation>
    </message>
    <message>
        <source>Keep the model loaded 30 min</source>
        <translation>模型保持加载 30 分钟</translation>
    </message>
    <message>
        <source>Keep the model loaded 1 h</source>
        <translation>模型保持加载 1 小时</translation>
    </message>
    <message>
        <source>Let the server unload it</source>
        <translation>由服务器决定何时卸载</translation>
    </message>
    <message>
        <source>Prompt budget: the model&apos;s context</source>
        <translation>提示预算：模型的上下文长度</translation>
    </message>
    <message>
        <source>Prompt budget: 8,000 tokens</source>
        <translation>提示预算：8,000 词元</translation>
    </message>
    <message>
        <source>Prompt budget: 4,000 tokens</source>
        <translation>提示预算：4,000 词元</translation>
    </message>
    <message>
        <source>Prompt budget: 2,000 tokens</source>
        <translation>提示预算：2,000 词元</translation>
    </message>
    <message>
        <source>Earlier messages not sent: context budget</source>
        <translation>较早的消息未发送：超出上下文预算</translation>
    </message>
    <message>
        <source>Model state</source>
        <translation>模型状态</translation>
    </message>
    <message>
        <source>Keep-alive ▾</source>
        <translation>保持加载 ▾</translation>
    </message>
    <message>
        <source>How long the model stays loaded; the prompt budget</source>
        <translation>模型保持加载多久；提示预算</translation>
    </message>
    <message>
        <source>Predicted wait</source>
        <translation>预计等待</translation>
    </message>
    <message>
        <source>Prediction error: not measured yet</source>
        <translation>预测误差：尚未测量</translation>
    </message>
    <message numerus="yes">
        <source>Predicted vs actual first token: median error {error} % (%Ln request(s))</source>
        <translation>
            <numerusform>首个词元预测与实际：误差中位数 {error} %（%Ln 个请求）</numerusform>
        </translation>
    </message>
    <message>
        <source>The last warm-up failed: {error}</source>
        <translation>上次预热失败：{error}</translation>
    </message>
    <message>
        <source>{prediction} (the image&apos;s tokens estimated)</source>
        <translation>{prediction}（图片的词元数为估计值）</translation>
    </message>
</context>
<context>
    <name>WaterfallView</name>
    <message>
        <source>Send a message, or click a point in Requests.</source>
        <translation>发送一条消息，或在“请求”中点击一个点。</translation>
    </message>
    <message>
        <source>ms since request written</source>
        <translation>请求发出后的毫秒数</translation>
    </message>
    <message>
        <source>request written</source>
        <translation>请求发出</translation>
    </message>
    <message>
        <source>response headers</source>
        <translation>响应头</translation>
    </message>
    <message>
        <source>first token</source>
        <translation>首个词元</translation>
    </message>
    <message>
        <source>last token</source>
        <translation>最后一个词元</translation>
    </message>
    <message>
        <source>painted</source>
        <translation>绘制</translation>
    </message>
    <message>
        <source>server: model load</source>
        <translation>服务器：加载模型</translation>
    </message>
    <message>
        <source>server: prompt processing</source>
        <translation>服务器：处理提示</translation>
    </message>
    <message>
        <source>server: generation</source>
        <translation>服务器：生成</translation>
    </message>
    <message>
        <source>server: queue</source>
        <translation>服务器：排队</translation>
    </message>
    <message>
        <source>transport + queue</source>
        <translation>传输 + 排队</translation>
    </message>
    <message>
        <source>server: prompt {cached} cached + {computed} computed</source>
        <translation>服务器：提示 {cached} 个已缓存 + {computed} 个已计算</translation>
    </message>
    <message>
        <source>server: {drafted} drafted, {accepted} accepted</source>
        <translation>服务器：草拟 {drafted} 个，接受 {accepted} 个</translation>
    </message>
    <message>
        <source>image ×{images} · {kilobytes} KB · {pixels} px</source>
        <translation>图片 ×{images} · {kilobytes} KB · {pixels} 像素</translation>
    </message>
    <message>
        <source>image ×{images} · {kilobytes} KB · {pixels} px · {tokens} tokens</source>
        <translation>图片 ×{images} · {kilobytes} KB · {pixels} 像素 · {tokens} 个词元</translation>
    </message>
    <message>
        <source>question read while typing: {tokens} tokens, saved about {ms} ms</source>
        <translation>输入时已读取问题：{tokens} 个词元，节省约 {ms} 毫秒</translation>
    </message>
    <message>
        <source>question read while typing: {tokens} tokens</source>
        <translation>输入时已读取问题：{tokens} 个词元</translation>
    </message>
    <message>
        <source>tool servers ready</source>
        <translation>工具服务器就绪</translation>
    </message>
    <message>
        <source>model call {step}</source>
        <translation>第 {step} 次模型调用</translation>
    </message>
    <message>
        <source>model call {step} · reading the results</source>
        <translation>第 {step} 次模型调用 · 读取工具结果</translation>
    </message>
    <message>
        <source>{tool} · arguments streamed</source>
        <translation>{tool} · 参数传输</translation>
    </message>
    <message>
        <source>{tool} · waiting for your approval (not latency)</source>
        <translation>{tool} · 等待您的批准（不计入延迟）</translation>
    </message>
    <message>
        <source>{tool} · run · result {chars} characters</source>
        <translation>{tool} · 运行 · 结果 {chars} 个字符</translation>
    </message>
    <message>
        <source>{tool} · run · error, {chars} characters</source>
        <translation>{tool} · 运行 · 出错，{chars} 个字符</translation>
    </message>
    <message>
        <source>{tool} · not run · {chars} characters</source>
        <translation>{tool} · 未运行 · {chars} 个字符</translation>
    </message>
    <message>
        <source>@ {ms} ms</source>
        <translation>@ {ms} 毫秒</translation>
    </message>
    <message>
        <source>{ms} ms</source>
        <translation>{ms} 毫秒</translation>
    </message>
    <message>
        <source>client TTFT {ms} ms</source>
        <translation>客户端首字延迟 {ms} 毫秒</translation>
    </message>
    <message>
        <source>no first token</source>
        <translation>没有首个词元</translation>
    </message>
    <message>
        <source>server ({source}) {ms} ms</source>
        <translation>服务器（{source}）{ms} 毫秒</translation>
    </message>
    <message>
        <source>model call {step}: server ({source}) {ms} ms</source>
        <translation>第 {step} 次模型调用：服务器（{source}）{ms} 毫秒</translation>
    </message>
    <message>
        <source>transport + queue {ms} ms</source>
        <translation>传输 + 排队 {ms} 毫秒</translation>
    </message>
    <message>
        <source>the server reported no timings</source>
        <translation>服务器未报告计时</translation>
    </message>
    <message>
        <source>Tool runs: {runs} · {ms} ms running · approval {wait} ms, not latency</source>
        <translation>工具运行：{runs} 次 · 运行 {ms} 毫秒 · 批准 {wait} 毫秒，不计入延迟</translation>
    </message>
    <message>
        <source>route decision</source>
        <translation>路由决定</translation>
    </message>
    <message>
        <source>{state} · {passages} passages, {tokens} tokens</source>
        <translation>{state} · {passages} 段，{tokens} 个词元</translation>
    </message>
    <message>
        <source>route decision · classifier out of budget</source>
        <translation>路由决定 · 分类器超出时间预算</translation>
    </message>
    <message>
        <source>Route: {route} · {why}</source>
        <translation>路由：{route} · {why}</translation>
    </message>
    <message>
        <source>decided in {ms} ms</source>
        <translation>用时 {ms} 毫秒决定</translation>
    </message>
</context>
<context>
    <name>WelcomePanel</name>
    <message>
        <source>A one-word reply</source>
        <translation>一个词的回答</translation>
    </message>
    <message>
        <source>In one word: what colour is a clear daytime sky?</source>
        <translation>用一个词回答：晴朗白天的天空是什么颜色？</translation>
    </message>
    <message>
        <source>A long answer</source>
        <translation>长篇回答</translation>
    </message>
    <message>
        <source>Explain in detail, step by step, how a web browser loads a page.</source>
        <translation>请一步一步详细解释网页浏览器是如何加载一个网页的。</translation>
    </message>
    <message>
        <source>A reasoning question</source>
        <translation>推理题</translation>
    </message>
    <message>
        <source>A bat and a ball cost 1.10 together; the bat costs 1.00 more than the ball. How much is the ball? Think it through.</source>
        <translation>球拍和球一共 1.10 元，球拍比球贵 1.00 元。球多少钱？请仔细想一想。</translation>
    </message>
    <message>
        <source>Welcome</source>
        <translation>欢迎</translation>
    </message>
    <message>
        <source>What would you like to ask?</source>
        <translation>想问点什么？</translation>
    </message>
    <message>
        <source>Connect a server…</source>
        <translation>连接服务器…</translation>
    </message>
    <message>
        <source>Connect a server</source>
        <translation>连接服务器</translation>
    </message>
    <message>
        <source>Try one:</source>
        <translation>试一试：</translation>
    </message>
    <message>
        <source>Send this question</source>
        <translation>发送这个问题</translation>
    </message>
    <message>
        <source>Local model {model} · on this computer</source>
        <translation>本地模型 {model} · 在这台电脑上</translation>
    </message>
    <message>
        <source>{server} · model {model}</source>
        <translation>{server} · 模型 {model}</translation>
    </message>
    <message>
        <source>Starting the local model {model} on this computer…</source>
        <translation>正在这台电脑上启动本地模型 {model}…</translation>
    </message>
    <message>
        <source>Connecting to the server…</source>
        <translation>正在连接服务器…</translation>
    </message>
    <message>
        <source>Found here: {servers}.</source>
        <translation>在这台电脑上找到：{servers}。</translation>
    </message>
    <message>
        <source>No other server answered on this computer&apos;s usual ports.</source>
        <translation>本机常用端口上没有其他服务器响应。</translation>
    </message>
    <message>
        <source>No Ollama, vLLM or other OpenAI-compatible server answered on this computer&apos;s usual ports.</source>
        <translation>这台电脑的常用端口上没有 Ollama、vLLM 或其他 OpenAI 兼容服务器应答。</translation>
    </message>
    <message>
        <source>The local model is not installed. Install it with:
{command}</source>
        <translation>本地模型尚未安装。安装命令：
{command}</translation>
    </message>
    <message>
        <source>vLLM or another OpenAI-compatible server</source>
        <translation>vLLM 或其他兼容 OpenAI 的服务器</translation>
    </message>
    <message numerus="yes">
        <source>{kind} on port {port} with %Ln model(s)</source>
        <translation>
            <numerusform>{kind}（端口 {port}，%Ln 个模型）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>view</name>
    <message>
        <source>Click to view the image full size</source>
        <translation>点击查看原图</translation>
    </message>
</context>
</TS>
