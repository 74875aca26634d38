"""An agent that keeps notes in a folder through the file-access tools.

Runs offline on the scripted model; the files land in a temporary folder.
"""

import asyncio
import tempfile

from agentry import Agent, FileAccessProvider, FileSystemAgentFileStore
from agentry.clients.scripted import ScriptedChatClient

call = ScriptedChatClient.function_call


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = FileSystemAgentFileStore(folder)
        await store.write_file("recipes/bread.md", "# Bread\nFlour, water, salt, yeast.")
        model = ScriptedChatClient(
            [
                call("file_access_search_files", {"pattern": "yeast"}),
                call("file_access_read_file", {"path": "recipes/bread.md"}),
                call(
                    "file_access_save_file",
                    {"path": "shopping.md", "content": "- flour\n- salt\n- yeast"},
                ),
                "Your shopping list is in shopping.md.",
            ]
        )
        agent = Agent(client=model, context_providers=[FileAccessProvider(store)])
        response = await agent.run("Make a shopping list for the bread recipe.")
        print(response.text)
        print(await store.list_files(recursive=True))
        print(await store.read_file("shopping.md"))


if __name__ == "__main__":
    asyncio.run(main())
